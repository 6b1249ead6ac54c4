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
  // Left around native calls: Functionary's closing tag, harmony's message framing, end tokens.
  '</function>',
  '<|channel|>final<|message|>',
  '<|start|>assistant',
  '<|end|>',
  '<|return|>',
  '<|call|>',
  '</think>',
  '<turn|>',
  '<\uff5cend\u2581of\u2581sentence\uff5c>',
];

/** Characters that only frame calls: list brackets, separators and the whitespace between them. */
function isFraming(c: number): boolean {
  return c === 0x5b || c === 0x5d || c === 0x2c || c === 0x3b || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** What Kimi K2 sometimes writes as the whole answer text of a turn that only calls tools. */
const NO_CONTENT = '(no content)';

/** Whether `s` (the answer so far) could still be just the placeholder: space, a prefix of it, or all of it then space. */
function mayBePlaceholder(s: string): boolean {
  let i = 0;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  let k = 0;
  while (i < s.length && k < NO_CONTENT.length) {
    if (s.charCodeAt(i) !== NO_CONTENT.charCodeAt(k)) return false;
    i++;
    k++;
  }
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i === s.length;
}

/** Whether `tail` could still grow into a marker. */
function isMarkerPrefix(tail: string): boolean {
  return MARKERS.some((marker) => marker.length > tail.length && marker.startsWith(tail));
}

/** The most text held back as a possible call opener (`<tool_calls>`, a fence, `functools`): bounded, so that the text is read in one pass. */
const MAX_OPENER = 96;
/** The longest tag name read as a call's wrapper (`<longcat_tool_call>`, `<|action_start|>`). */
const MAX_TAG_NAME = 64;
/**
 * Words that only introduce a call when one follows them at once: Cohere's `Action:`,
 * Phi-4-mini's `functools`, GigaChat 3's `function call`, HyperCLOVA X's
 * `-> tool/function_call`. No word may end in the start of one (RWKV's `**Tool Call:**`
 * does, so it stays text): a held word's start would then depend on how the text was split.
 */
const OPENER_WORDS = ['Action:', 'functools', 'function call', '-> tool/function_call'];

/** A character of a wrapper tag's name: `<tool_calls>`, `<minimax:tool_call>`, `<|plugin|>`, `<ifm|tool_call>`. */
function isTagNameCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x3a || c === 0x2e || c === 0x2d || c === 0x7c;
}

function isWordCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/**
 * Where an opening tag ending at `end` (exclusive; `s[end - 1]` is `>`) starts: `<name>`,
 * the name starting with a letter, `_` or `|` (`<|plugin|>`). -1 when there is none.
 */
function tagStartBefore(s: string, end: number, floor: number): number {
  const nameEnd = end - 1;
  let i = nameEnd;
  while (i > floor && nameEnd - i < MAX_TAG_NAME && isTagNameCode(s.charCodeAt(i - 1))) i--;
  if (i === nameEnd || i === floor || s.charCodeAt(i - 1) !== 0x3c) return -1;
  const first = s.charCodeAt(i);
  return (first >= 0x61 && first <= 0x7a) || (first >= 0x41 && first <= 0x5a) || first === 0x5f || first === 0x7c ? i - 1 : -1;
}

/**
 * Where a trailing run of call openers in `s` starts: opening tags (`<tool_calls>`,
 * `<|plugin|>`), code fences with their language (three or more backticks, then `json`),
 * `Action:` and `functools`, with framing between them, and at the very end the start of
 * one (`<tool_ca`, one or two backticks, `funct`). `s.length` when the text does not end so.
 * Only the last `MAX_OPENER` characters are looked at; `wordBefore` says whether the text
 * before `s` ended in a word character.
 */
function openerRunStart(s: string, wordBefore: boolean): number {
  const floor = Math.max(0, s.length - MAX_OPENER);
  // Read from the end, or from the start of an opener word the end may still grow into (one
  // with blank space in it, `function c`, is cut by the framing the plain reading skips): the
  // longer run wins.
  const viaEnd = runStart(s, s.length, floor, wordBefore);
  const word = partialWordStart(s, floor, wordBefore);
  return word === s.length ? viaEnd : Math.min(viaEnd, runStart(s, word, floor, wordBefore));
}

/** The start of the run of opener items (with framing between them) that ends at `i`; `i` when none does. */
function runStart(s: string, i: number, floor: number, wordBefore: boolean): number {
  let start = i;
  for (;;) {
    let j = start;
    while (j > floor && isFraming(s.charCodeAt(j - 1))) j--;
    if (j === floor) return start;
    const item = openerItemStart(s, j, floor, j === s.length, wordBefore);
    if (item < 0) return start;
    start = item;
  }
}

/** Where one opener item ending at `end` starts (see `openerRunStart`); -1 when none ends there. */
function openerItemStart(s: string, end: number, floor: number, atEnd: boolean, wordBefore: boolean): number {
  const last = s.charCodeAt(end - 1);
  if (last === 0x3e) return tagStartBefore(s, end, floor);
  // A fence (a run of backticks) with or without its language; at the end, a run too short yet.
  let i = end;
  while (i > floor && end - i <= MAX_TAG_NAME && isWordCode(s.charCodeAt(i - 1))) i--;
  let k = i;
  while (k > floor && s.charCodeAt(k - 1) === 0x60) k--;
  if (i - k >= 3 || (atEnd && i === end && i - k > 0)) return k;
  if (atEnd) {
    // The text ends inside what may become a tag: `<`, `<name`, `<|name|` (read first:
    // `<functools` is the start of a tag, not the word).
    k = end;
    while (k > floor && end - k < MAX_TAG_NAME && isTagNameCode(s.charCodeAt(k - 1))) k--;
    if (k > floor && s.charCodeAt(k - 1) === 0x3c) return k - 1;
  }
  const wordStart = (at: number): boolean => (at === 0 ? !wordBefore : !isWordCode(s.charCodeAt(at - 1)));
  for (const word of OPENER_WORDS) {
    const at = end - word.length;
    if (at >= floor && s.startsWith(word, at) && wordStart(at)) return at;
  }
  return -1;
}

/** The longest opener word, and the characters opener words start with. */
const LONGEST_WORD = Math.max(...OPENER_WORDS.map((word) => word.length));
const WORD_FIRST = new Set(OPENER_WORDS.map((word) => word.charCodeAt(0)));

/** Where the text's end starts a word that may still grow into an opener word (`funct`, `function c`); `s.length` when it does not. */
function partialWordStart(s: string, floor: number, wordBefore: boolean): number {
  const end = s.length;
  for (let at = Math.max(floor, end - LONGEST_WORD + 1); at < end; at++) {
    if (!WORD_FIRST.has(s.charCodeAt(at))) continue;
    if (at === 0 ? wordBefore : isWordCode(s.charCodeAt(at - 1))) continue;
    const tail = s.slice(at);
    if (OPENER_WORDS.some((word) => word.length > tail.length && word.startsWith(tail))) return at;
  }
  return end;
}

/**
 * How long the call closer at `i` is: `</name>`, `<|name|>` (any tag whose name starts with
 * `|`) or a fence (a run of three or more backticks). 0 when none is there, -1 when `s` ends
 * inside what may still become one (never when `final`: nothing follows).
 */
function closerLength(s: string, i: number, final: boolean): number {
  const c = s.charCodeAt(i);
  const open = final ? 0 : -1;
  if (c === 0x60) {
    let k = i;
    while (k < s.length && s.charCodeAt(k) === 0x60) k++;
    // A run that ends with the text and is too short yet may still grow into a fence (a
    // longer one is a fence already: its continuation goes with it, see `fenceRun`).
    if (k - i < 3) return k === s.length ? open : 0;
    return k - i;
  }
  if (c !== 0x3c) return 0;
  if (i + 1 === s.length) return open;
  const second = s.charCodeAt(i + 1);
  if (second !== 0x2f && second !== 0x7c) return 0;
  let k = i + 2;
  while (k < s.length && k - i - 2 < MAX_TAG_NAME && isTagNameCode(s.charCodeAt(k))) k++;
  if (k === s.length) return open;
  return s.charCodeAt(k) === 0x3e && k > i + 2 ? k + 1 - i : 0;
}

/**
 * Cleans the visible text of a text-tools answer, as a stream: removes call markers
 * (`<tool_call>`, `[TOOL_CALLS]`, leaked end tokens), the brackets, commas and blank
 * space that only framed calls (`[f(a=1), g()]` leaves nothing), and whatever wrapped a
 * call: a tag, fence or opening word right before it (`<tools>`, `<longcat_tool_call>`, a
 * `json` fence, `Action:`, `functools`) and a closing tag or fence right after it. It holds
 * back only a possible marker prefix, a run of framing characters and a possible opener (at
 * most `MAX_OPENER` characters), so the result does not depend on how the text was split.
 */
export class CallTextCleaner {
  private pending = '';
  private framing = '';
  /** Text that opens a call if one follows at once (a tag, a fence); shown otherwise. */
  private opener = '';
  private afterCall = false;
  /** The last piece ended in a fence that closed a call: backticks that follow at once belong to it. */
  private fenceRun = false;
  /** Whether the last character passed on (shown or held as framing) is a word character: `xAction:` opens nothing. */
  private wordBefore = false;
  /** The answer's opening text while it may still be Kimi's `(no content)` placeholder; undefined once decided. */
  private lead: string | undefined = '';

  /** Text between calls; returns what can be shown now. */
  text(text: string): string {
    if (this.lead !== undefined) {
      const opening = this.lead + text;
      if (mayBePlaceholder(opening)) {
        this.lead = opening;
        return '';
      }
      this.lead = undefined;
      return this.cleaned(opening);
    }
    return this.cleaned(text);
  }

  /**
   * Markers out first, then what wrapped a call (`final`: the end of the answer, nothing is
   * held back for text that could still follow). Two steps, so that a closer or an opener is
   * read on the text as it is shown, whichever way markers were split between pieces.
   */
  private cleaned(text: string, final = false): string {
    return this.unwrapped(this.withoutMarkers(text, final), final);
  }

  /** `text` without markers; a possible marker prefix at its end is held back in `pending`. */
  private withoutMarkers(text: string, final: boolean): string {
    const s = this.pending + text;
    this.pending = '';
    let kept = '';
    let from = 0;
    let i = 0;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c !== 0x3c && c !== 0x5b) {
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
      if (!final && s.length - i < 32 && isMarkerPrefix(s.slice(i))) {
        this.pending = s.slice(i);
        return kept + s.slice(from, i);
      }
      i++;
    }
    return kept + s.slice(from);
  }

  /**
   * `text` (no markers) without a closer right after a call or an opener right before one:
   * a possible closer or opener at its end is held back in `opener`.
   */
  private unwrapped(text: string, final: boolean): string {
    let s = this.opener + text;
    this.opener = '';
    if (this.fenceRun) {
      this.fenceRun = false;
      let k = 0;
      while (k < s.length && s.charCodeAt(k) === 0x60) k++;
      if (k === s.length && !final) {
        this.fenceRun = true;
        return '';
      }
      s = s.slice(k);
    }
    let from = 0;
    if (this.afterCall) {
      // Only framing since the call: a closing tag or fence here closed the call, and goes
      // with the blank space before it.
      let i = 0;
      while (i < s.length) {
        if (isFraming(s.charCodeAt(i))) {
          i++;
          continue;
        }
        const closer = closerLength(s, i, final);
        if (closer === 0) break;
        if (closer < 0) {
          this.opener = s.slice(i);
          return this.filterFraming(s.slice(from, i));
        }
        this.framing = '';
        i += closer;
        from = i;
        if (i === s.length && s.charCodeAt(i - 1) === 0x60) this.fenceRun = !final;
      }
    }
    const rest = from === 0 ? s : s.slice(from);
    const start = final ? rest.length : openerRunStart(rest, this.wordBefore);
    if (start < rest.length) this.opener = rest.slice(start);
    if (start > 0) this.wordBefore = isWordCode(rest.charCodeAt(start - 1));
    return this.filterFraming(start === rest.length ? rest : rest.slice(0, start));
  }

  /**
   * A call was taken out here: framing and an opener held before it go, and so does a
   * `(no content)` placeholder that was the whole text before the first call. Returns held
   * text that is not the placeholder, to be shown before the call.
   */
  call(): string {
    let released = '';
    const lead = this.lead;
    this.lead = undefined;
    if (lead !== undefined && lead.trim() !== NO_CONTENT && lead.trim() !== '') released = this.cleaned(lead);
    this.pending = '';
    this.framing = '';
    this.opener = '';
    this.fenceRun = false;
    this.afterCall = true;
    this.wordBefore = false;
    return released;
  }

  /** The end of the answer: flushes what was held. */
  end(): string {
    const lead = this.lead;
    this.lead = undefined;
    if (lead !== undefined && lead !== '') return this.cleaned(lead) + this.end();
    const out = this.opener === '' && this.pending === '' ? '' : this.cleaned('', true);
    if (this.afterCall) return out;
    const framing = this.framing;
    this.framing = '';
    return out + framing;
  }

  private filterFraming(text: string): string {
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (isFraming(c)) {
        this.framing += text.charAt(i);
        continue;
      }
      if (this.framing !== '') {
        // After a call only the line breaks and spaces of the framing survive.
        out += this.afterCall ? onlySpace(this.framing) : this.framing;
        this.framing = '';
      }
      this.afterCall = false;
      out += text.charAt(i);
    }
    return out;
  }
}

function onlySpace(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) if (isSpace(text.charCodeAt(i))) out += text.charAt(i);
  return out;
}
