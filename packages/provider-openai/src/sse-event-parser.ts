/** One server-sent event: its `event:` name (when given) and its `data:` lines joined with `\n`. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Takes each event as it completes (no event object and no array per event). */
export type SseEventSink = (event: string | undefined, data: string) => void;

/** A push parser of a `text/event-stream` body; feed it decoded text in any chunking. */
export interface SseEventParser {
  /** The events completed by this text: appended to `out` when it is an array (returned), handed to it when it is a function. */
  push(text: string, out?: SseEvent[] | SseEventSink): SseEvent[];
  /** The events still open when the body ended (a last event without its blank line), as `push` gives them. */
  end(out?: SseEvent[] | SseEventSink): SseEvent[];
}

const NONE: SseEvent[] = [];

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

  push(text: string, out: SseEvent[] | SseEventSink = []): SseEvent[] {
    let start = 0;
    if (this.#afterCR && text.charCodeAt(0) === LF) start = 1;
    this.#afterCR = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      if (this.#partial === '') this.#line(text, start, i, out);
      else {
        const joined = this.#partial + text.slice(start, i);
        this.#line(joined, 0, joined.length, out);
      }
      this.#partial = '';
      if (c === CR) {
        if (i + 1 === text.length) this.#afterCR = true;
        else if (text.charCodeAt(i + 1) === LF) i++;
      }
      start = i + 1;
    }
    if (start < text.length) this.#partial += text.slice(start);
    return typeof out === 'function' ? NONE : out;
  }

  end(out: SseEvent[] | SseEventSink = []): SseEvent[] {
    if (this.#partial !== '') this.#line(this.#partial, 0, this.#partial.length, out);
    this.#partial = '';
    this.#line('', 0, 0, out);
    return typeof out === 'function' ? NONE : out;
  }

  /** The line `text[from, to)`: indexes rather than a slice per line, and only the value sliced. */
  #line(text: string, from: number, to: number, out: SseEvent[] | SseEventSink): void {
    if (from === to) {
      const data = this.#data;
      if (data !== undefined) {
        if (typeof out === 'function') out(this.#event, data);
        else out.push({ event: this.#event, data });
      }
      this.#event = undefined;
      this.#data = undefined;
      return;
    }
    if (text.charCodeAt(from) === 58 /* : */) return;
    // Scanned only within the line: a body of lines without colons stays linear.
    let colon = from;
    while (colon < to && text.charCodeAt(colon) !== 58 /* : */) colon++;
    let valueAt = colon + 1;
    if (valueAt < to && text.charCodeAt(valueAt) === 32 /* space */) valueAt++;
    const value = valueAt >= to ? '' : text.slice(valueAt, to);
    if (isField(text, from, colon, 'data')) this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (isField(text, from, colon, 'event')) this.#event = value;
  }
}

/** Whether `text[from, to)` is `name`, without slicing it out. */
function isField(text: string, from: number, to: number, name: string): boolean {
  if (to - from !== name.length) return false;
  return text.startsWith(name, from);
}
