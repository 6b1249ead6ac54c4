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
  // The wrappers of the classic formats' call blocks: LFM2, OLMo 3, Llama 4, Granite 3,
  // Jamba and Apriel, Nemotron, InternLM2, GigaChat, LongCat, Cohere R7B's action and response.
  '<|tool_call_start|>',
  '<|tool_call_end|>',
  '<function_calls>',
  '</function_calls>',
  '<|python_start|>',
  '<|python_end|>',
  '<|tool_call|>',
  '<tool_calls>',
  '</tool_calls>',
  '<TOOLCALL>',
  '</TOOLCALL>',
  '<|action_start|>',
  '<|plugin|>',
  '<|action_end|>',
  '<|function_call|>',
  '<|message_sep|>\n\nfunction call<|role_sep|>',
  '<longcat_tool_call>',
  '</longcat_tool_call>',
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '<|START_RESPONSE|>',
  '<|END_RESPONSE|>',
  '<|START_TEXT|>',
  '<|END_TEXT|>',
  // Functionary v3.2's text segment header.
  '>>>all\n',
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

/**
 * Words that introduce a call list when one follows (Phi-4-mini and FireFunction's
 * `functools[…]`, Cohere Command R's `Action:` line): held like framing, so they go when a
 * call follows and stay when none does. Read only at the start of a word.
 */
const LEADS = ['functools', 'Action:'];

/**
 * Tags models wrap a JSON call in besides the trained one (llama.cpp reads them for Hermes 2
 * Pro / Qwen 2.5): an opening tag is held like framing (it goes when a call follows, stays
 * otherwise) and its closing tag goes only right after a call, so XML in an answer stays.
 */
const WRAPPER_TAGS = ['<tool>', '<tools>', '<response>', '<json>', '<JSON>', '<xml>'];
const WRAPPER_CLOSERS = ['</tool>', '</tools>', '</response>', '</json>', '</JSON>', '</xml>'];

const BACKTICK = 0x60;

/** Longest fence language word read (`json`, `python`, `tool_code`). */
const MAX_FENCE_WORD = 16;

function isFenceWordUnit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;
}

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

/** Held text that long or longer cannot still grow into a marker. */
const LONGEST_MARKER = Math.max(...MARKERS.map((marker) => marker.length), ...WRAPPER_CLOSERS.map((tag) => tag.length));

/** Whether `tail` could still grow into a marker (or a wrapper tag). */
function isMarkerPrefix(tail: string): boolean {
  const prefixOf = (token: string): boolean => token.length > tail.length && token.startsWith(tail);
  return MARKERS.some(prefixOf) || WRAPPER_TAGS.some(prefixOf) || WRAPPER_CLOSERS.some(prefixOf);
}

/**
 * Cleans the visible text of a text-tools answer, as a stream: removes call markers
 * (`<tool_call>`, `[TOOL_CALLS]`, leaked end tokens) and the brackets, commas and blank
 * space that only framed calls (`[f(a=1), g()]` leaves nothing). It holds back only a
 * possible marker prefix and a run of framing characters, so the result does not depend on
 * how the text was split.
 */
export class CallTextCleaner {
  private pending = '';
  private framing = '';
  private afterCall = false;
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

  private cleaned(text: string): string {
    const s = this.pending + text;
    this.pending = '';
    let out = '';
    let kept = '';
    let from = 0;
    let i = 0;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === BACKTICK || ((c === 0x66 || c === 0x41) && (i === 0 || isSpace(s.charCodeAt(i - 1))))) {
        // A code fence or a lead word: held as framing (see `hold`).
        const end = c === BACKTICK ? fenceEnd(s, i) : leadEnd(s, i);
        if (end === -2) {
          this.pending = s.slice(i);
          break;
        }
        if (end < 0) {
          i++;
          continue;
        }
        kept += s.slice(from, i);
        out += this.filterFraming(kept);
        kept = '';
        out += this.hold(s.slice(i, end));
        i = from = end;
        continue;
      }
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
      const wrapper = c === 0x3c ? (WRAPPER_TAGS.find((t) => s.startsWith(t, i)) ?? WRAPPER_CLOSERS.find((t) => s.startsWith(t, i))) : undefined;
      if (wrapper !== undefined) {
        kept += s.slice(from, i);
        out += this.filterFraming(kept);
        kept = '';
        out += this.hold(wrapper);
        i = from = i + wrapper.length;
        continue;
      }
      if (s.length - i < LONGEST_MARKER && isMarkerPrefix(s.slice(i))) {
        this.pending = s.slice(i);
        break;
      }
      i++;
    }
    kept += s.slice(from, this.pending === '' ? s.length : s.length - this.pending.length);
    return out + this.filterFraming(kept);
  }

  /**
   * A code fence, lead word or wrapper tag in the answer. Before a call it is held with the
   * framing (a fence around a JSON call list, `functools[`, `<tools>`): it goes if a call
   * follows and is shown with the next text otherwise. Right after a call, a bare closing
   * fence or a wrapper's closing tag goes, and an opener is held again.
   */
  private hold(word: string): string {
    const closer = word === '```' || WRAPPER_CLOSERS.includes(word);
    if (this.afterCall) {
      if (closer) return '';
      // An opener after a call may frame the next call: held, with the space before it, as
      // one before the first call is (and shown with the text that follows, if any).
      this.framing = onlySpace(this.framing);
      this.afterCall = false;
    } else if (closer && word !== '```') {
      return this.filterFraming(word);
    }
    this.framing += word;
    return '';
  }

  /**
   * A call was taken out here: framing held before it goes, and so does a `(no content)`
   * placeholder that was the whole text before the first call. Returns held text that is
   * not the placeholder, to be shown before the call.
   */
  call(): string {
    let released = '';
    const lead = this.lead;
    this.lead = undefined;
    if (lead !== undefined && lead.trim() !== NO_CONTENT && lead.trim() !== '') released = this.cleaned(lead);
    // Text held back as the possible start of a marker that no marker followed is text (the
    // `>` of `<tag>` right before a JSON call); a held fence or lead word frames the call.
    const pending = this.pending;
    this.pending = '';
    if (pending !== '' && !pending.startsWith('```') && !LEADS.includes(pending)) released += this.filterFraming(pending);
    this.framing = '';
    this.afterCall = true;
    return released;
  }

  /** The end of the answer: flushes what was held. */
  end(): string {
    const lead = this.lead;
    this.lead = undefined;
    if (lead !== undefined && lead !== '') return this.cleaned(lead) + this.end();
    const rest = this.pending;
    this.pending = '';
    let out = '';
    // A held fence or lead word is complete once the text ends.
    if (rest.startsWith('```') || LEADS.includes(rest)) out = this.hold(rest);
    else if (rest !== '') out = this.filterFraming(rest);
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

/**
 * End of the code fence at `s[i]` (three backticks and a language word), -1 when there is
 * none, -2 when the text ends before it is decided (held for the next piece).
 */
function fenceEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && j - i < 3 && s.charCodeAt(j) === BACKTICK) j++;
  if (j - i < 3) return j >= s.length ? -2 : -1;
  while (j < s.length && j - i - 3 < MAX_FENCE_WORD && isFenceWordUnit(s.charCodeAt(j))) j++;
  // The word may go on in the next piece.
  return j >= s.length && j - i - 3 < MAX_FENCE_WORD ? -2 : j;
}

/** End of the lead word at `s[i]`, -1 when there is none, -2 when the text ends inside one. */
function leadEnd(s: string, i: number): number {
  for (const lead of LEADS) {
    if (s.startsWith(lead, i)) return i + lead.length;
    if (s.length - i < lead.length && lead.startsWith(s.slice(i))) return -2;
  }
  return -1;
}

function onlySpace(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) if (isSpace(text.charCodeAt(i))) out += text.charAt(i);
  return out;
}
