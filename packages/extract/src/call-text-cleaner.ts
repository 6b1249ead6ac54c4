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
      if (s.length - i < 32 && isMarkerPrefix(s.slice(i))) {
        this.pending = s.slice(i);
        break;
      }
      i++;
    }
    kept += s.slice(from, this.pending === '' ? s.length : s.length - this.pending.length);
    return this.filterFraming(kept);
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
    this.pending = '';
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
    const out = rest === '' ? '' : this.filterFraming(rest);
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
