import { closerLength, isFraming, openerRunStart, startsLine } from './call-wrappers.ts';
import type { WrapperCloser } from './call-wrappers.ts';

// Markers that wrap calls, and end tokens small models leak; the wrapper removes them from
// the visible text once the calls have been taken out.
const MARKERS = [
  '<tool_call>',
  '</tool_call>',
  '<function_call>',
  '</function_call>',
  '<|python_tag|>',
  '[TOOL_CALLS]',
  '<end_of_turn>',
  '<|eot_id|>',
  '<|im_end|>',
  // Special tokens around the classic formats' call blocks and answers: LFM2, Llama 4, Granite,
  // InternLM2, GigaChat 3.1, Cohere R7B's action, response and text. (Plain tags such as
  // `<tool_calls>` are not markers: they go only where they wrap a call, see call-wrappers.ts.)
  '<|tool_call_start|>',
  '<|tool_call_end|>',
  '<|python_start|>',
  '<|python_end|>',
  '<|tool_call|>',
  '<|action_start|>',
  '<|plugin|>',
  '<|action_end|>',
  '<|function_call|>',
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '<|START_RESPONSE|>',
  '<|END_RESPONSE|>',
  '<|START_TEXT|>',
  '<|END_TEXT|>',
  // Functionary v3.2's header of a text segment.
  '>>>all\n',
  // Left around native calls: Functionary's closing tag, harmony's message framing, end tokens.
  '</function>',
  '<|channel|>final<|message|>',
  // A commentary message without a recipient is a preamble the user sees (llama.cpp's GPT-OSS cases).
  '<|channel|>commentary<|message|>',
  '<|start|>assistant',
  '<|end|>',
  '<|return|>',
  '<|call|>',
  // Kimi's end tokens after a call written without its section.
  '<|tool_call_end|>',
  '<|tool_calls_section_end|>',
  '</think>',
  '<turn|>',
  '<\uff5cend\u2581of\u2581sentence\uff5c>',
  // K2 Horizon's group of calls, and Kimi K3's channel framing around the answer.
  '<ifm|tool_calls>',
  '</ifm|tool_calls>',
  '<|open|>response<|sep|>',
  '<|close|>response<|sep|>',
  '<|close|>message<|sep|>',
];

/** The longest marker: a longer held prefix cannot be one. */
const LONGEST_MARKER = Math.max(...MARKERS.map((marker) => marker.length));

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** What Kimi K2 sometimes writes as the whole answer text of a turn that only calls tools. */
const NO_CONTENT = '(no content)';

/** Whether `tail` could still grow into a marker. */
function isMarkerPrefix(tail: string): boolean {
  return MARKERS.some((marker) => marker.length > tail.length && marker.startsWith(tail));
}

/**
 * Cleans the visible text of a text-tools answer, as a stream: removes call markers
 * (`<tool_call>`, `[TOOL_CALLS]`, leaked end tokens), the brackets, commas and blank space
 * that only framed calls (`[f(a=1), g()]` leaves nothing), and what wrapped a call
 * (call-wrappers.ts): a wrapper tag, fence or opener word right before it, and right after it
 * the closers those owe (`</tools>`, the closing fence), nothing else. It holds back only a
 * possible marker prefix, a run of framing characters and a possible opener (at most
 * `MAX_OPENER` characters), so the result does not depend on how the text was split.
 */
export class CallTextCleaner {
  /** A possible marker prefix at the end of the text so far. */
  private pending = '';
  private framing = '';
  /** Text that may open a call if one follows (shown otherwise), or right after a call a closer's start. */
  private opener = '';
  /** Only framing (and closers) shown since the last call. */
  private afterCall = false;
  /** What the openers of the calls since the last shown text owe, innermost last (while `afterCall`). */
  private owed: WrapperCloser[] = [];
  /** Whether the text so far ends a line (see `startsLine`): an opener word must start one. */
  private lineStart = true;
  /** The answer's opening text while it may still be Kimi's `(no content)` placeholder; undefined once decided. */
  private lead: string | undefined = '';
  /** How many characters of the placeholder `lead` has matched (after its leading space). */
  private leadMatched = 0;

  /** Text between calls; returns what can be shown now. */
  text(text: string): string {
    if (this.lead !== undefined) {
      const opening = this.lead + text;
      if (this.mayStillBePlaceholder(text)) {
        this.lead = opening;
        return '';
      }
      this.lead = undefined;
      return this.cleaned(opening, false);
    }
    return this.cleaned(text, false);
  }

  /** Reads `text` on from where the placeholder check stopped (each character once): could the answer still be just space, the placeholder, space? */
  private mayStillBePlaceholder(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const matched = this.leadMatched;
      if (matched === 0 || matched === NO_CONTENT.length) {
        if (isSpace(c)) continue;
        if (matched === NO_CONTENT.length) return false;
      }
      if (c !== NO_CONTENT.charCodeAt(matched)) return false;
      this.leadMatched = matched + 1;
    }
    return true;
  }

  /** Markers out first, then wrappers: both read on the text as it is shown, however markers were split. */
  private cleaned(text: string, final: boolean): string {
    return this.unwrapped(this.withoutMarkers(text, final), final);
  }

  /** `text` without markers; a possible marker prefix at its end is held back in `pending` (unless `final`). */
  private withoutMarkers(text: string, final: boolean): string {
    const s = this.pending + text;
    this.pending = '';
    let kept = '';
    let from = 0;
    let i = 0;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c !== 0x3c && c !== 0x5b && c !== 0x3e) {
        i++;
        continue;
      }
      const marker = MARKERS.find((m) => s.startsWith(m, i));
      if (marker !== undefined) {
        kept += s.slice(from, i);
        i += marker.length;
        from = i;
        continue;
      }
      if (!final && s.length - i < LONGEST_MARKER && isMarkerPrefix(s.slice(i))) {
        this.pending = s.slice(i);
        return kept + s.slice(from, i);
      }
      i++;
    }
    return kept + s.slice(from);
  }

  /**
   * `text` (no markers) without the closers a call still owes right after it, and with a
   * possible opener at its end held back in `opener` (unless `final`: the end of the answer).
   */
  private unwrapped(text: string, final: boolean): string {
    const s = this.opener + text;
    this.opener = '';
    let from = 0;
    if (this.afterCall && this.owed.length > 0) {
      // Only framing since the call: the closers it owes go, with the blank space before them.
      let i = 0;
      while (i < s.length && this.owed.length > 0) {
        if (isFraming(s.charCodeAt(i))) {
          i++;
          continue;
        }
        const closer = closerLength(s, i, this.owed[this.owed.length - 1] as WrapperCloser, final);
        if (closer === 0) break;
        if (closer < 0) {
          this.opener = s.slice(i);
          return this.shown(s.slice(from, i));
        }
        this.owed.pop();
        this.framing = '';
        i += closer;
        from = i;
      }
    }
    const rest = from === 0 ? s : s.slice(from);
    const start = final ? rest.length : openerRunStart(rest, this.lineStart, true);
    if (start < rest.length) this.opener = rest.slice(start);
    return this.shown(start === rest.length ? rest : rest.slice(0, start));
  }

  /** Passes `text` on to be shown (framing held back), noting whether it ends a line. */
  private shown(text: string): string {
    if (text === '') return '';
    let i = text.length;
    while (i > 0 && (text.charCodeAt(i - 1) === 0x20 || text.charCodeAt(i - 1) === 0x09)) i--;
    if (i > 0) this.lineStart = startsLine(text, text.length, false);
    return this.filterFraming(text);
  }

  /**
   * A call was taken out here: framing and a complete opener run held before it go (what
   * could only have grown into one is shown), and so does a `(no content)` placeholder that
   * was the whole text before the first call. Returns held text to be shown before the call.
   */
  call(): string {
    let released = '';
    const lead = this.lead;
    this.lead = undefined;
    if (lead !== undefined && lead.trim() !== NO_CONTENT && lead.trim() !== '') released = this.cleaned(lead, false);
    // What is held is complete now: a marker's prefix is text, and only whole openers wrap the call.
    const held = this.opener + this.withoutMarkers('', true);
    this.opener = '';
    const owed: WrapperCloser[] = [];
    const start = openerRunStart(held, this.lineStart, false, owed);
    if (start > 0) released += this.shown(held.slice(0, start));
    // A call in the same wrapper as the one before (`[f(), g()]` in `<tool_calls>`) owes what that one still does.
    if (!this.afterCall) this.owed = [];
    this.owed.push(...owed);
    this.framing = '';
    this.afterCall = true;
    this.lineStart = true;
    return released;
  }

  /** The end of the answer: flushes what was held. */
  end(): string {
    const lead = this.lead;
    this.lead = undefined;
    let out = lead === undefined || lead === '' ? '' : this.cleaned(lead, false);
    if (this.opener !== '' || this.pending !== '') out += this.cleaned('', true);
    if (this.afterCall) return out;
    const framing = this.framing;
    this.framing = '';
    return out + framing;
  }

  private filterFraming(text: string): string {
    let out = '';
    let i = 0;
    while (i < text.length) {
      let j = i;
      while (j < text.length && isFraming(text.charCodeAt(j))) j++;
      if (j > i) this.framing += text.slice(i, j);
      if (j === text.length) break;
      let k = j;
      while (k < text.length && !isFraming(text.charCodeAt(k))) k++;
      if (this.framing !== '') {
        out += this.afterCall ? onlySpace(this.framing) : this.framing;
        this.framing = '';
      }
      this.afterCall = false;
      this.owed = [];
      out += text.slice(j, k);
      i = k;
    }
    return out;
  }
}

function onlySpace(text: string): string {
  let out = '';
  let from = -1;
  for (let i = 0; i <= text.length; i++) {
    const space = i < text.length && isSpace(text.charCodeAt(i));
    if (space && from < 0) from = i;
    else if (!space && from >= 0) {
      out += text.slice(from, i);
      from = -1;
    }
  }
  return out;
}
