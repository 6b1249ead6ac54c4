/** One server-sent event: its `event:` name (when given) and its `data:` lines joined with `\n`. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** A push parser of a `text/event-stream` body; feed it decoded text in any chunking. */
export interface SseEventParser {
  /** The events completed by this text. */
  push(text: string): SseEvent[];
  /** The events still open when the body ended (a last event without its blank line). */
  end(): SseEvent[];
}

const LF = 10;
const CR = 13;

/**
 * Creates a parser of server-sent events as the WHATWG spec reads them: lines end with
 * CRLF, LF or CR (a CRLF split across two pushes counts once); `data:` lines accumulate
 * (one leading space dropped) and a blank line dispatches them; `event:` names the event;
 * comments (`:`), `id:`, `retry:` and unknown fields are skipped; an event without data is
 * not dispatched. Each character is scanned once, so the cost is linear in the body
 * whatever the chunking. A streamed Chat Completions response is read with it instead of
 * the SDK's generator chain, which costs several promises and copies per chunk.
 */
export function createSseEventParser(): SseEventParser {
  return new SseParser();
}

// A class, not a closure per method: one is held by every open stream for its whole length.
class SseParser implements SseEventParser {
  /** The start of a line that has not ended yet. */
  #partial = '';
  /** A push ended in CR: an LF opening the next one belongs to the same line break. */
  #afterCR = false;
  #event: string | undefined;
  #data: string | undefined;

  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    if (this.#afterCR && text.charCodeAt(0) === LF) start = 1;
    this.#afterCR = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      const piece = text.slice(start, i);
      this.#line(this.#partial === '' ? piece : this.#partial + piece, out);
      this.#partial = '';
      if (c === CR) {
        if (i + 1 === text.length) this.#afterCR = true;
        else if (text.charCodeAt(i + 1) === LF) i++;
      }
      start = i + 1;
    }
    if (start < text.length) this.#partial += text.slice(start);
    return out;
  }

  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#partial !== '') this.#line(this.#partial, out);
    this.#partial = '';
    this.#line('', out);
    return out;
  }

  #line(text: string, out: SseEvent[]): void {
    if (text === '') {
      if (this.#data !== undefined) out.push({ event: this.#event, data: this.#data });
      this.#event = undefined;
      this.#data = undefined;
      return;
    }
    if (text.charCodeAt(0) === 58 /* : */) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === 'data') this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (field === 'event') this.#event = value;
  }
}
