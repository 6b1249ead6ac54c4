/**
 * Default `limits.upstreamMessageLimitBytes`: far above any real message (a chat completion,
 * a Responses `response.completed` event with a generated image), far below what would take
 * the process down.
 */
export const DEFAULT_UPSTREAM_MESSAGE_LIMIT_BYTES = 16 * 1024 * 1024;

const LF = 10;
const CR = 13;
const BLANK_LINES = [Buffer.from('\n\n'), Buffer.from('\r\n\r\n'), Buffer.from('\r\r')] as const;

/** How a body is cut into messages, from its media type. */
type Framing = 'events' | 'lines' | 'whole';

function framingOf(contentType: string | null): Framing {
  const type = contentType?.toLowerCase() ?? '';
  if (type.includes('text/event-stream')) return 'events';
  // Ollama's streams (`application/x-ndjson`) and other JSON-lines bodies.
  if (type.includes('ndjson') || type.includes('jsonl') || type.includes('json-seq')) return 'lines';
  return 'whole';
}

function isBreak(byte: number | undefined): boolean {
  return byte === LF || byte === CR;
}

/**
 * Counts an upstream body's bytes against the largest message the gateway holds: one event of
 * a `text/event-stream` (up to its blank line), one line of an NDJSON stream, or the whole body
 * of anything else. Every reader of the body (the SDKs' line splitters, `JSON.parse`) holds a
 * message whole before it can use it, and some re-scan it on every chunk, so an upstream that
 * never ends its line would grow the process and burn its CPU without bound.
 *
 * The event boundary is found per chunk (a blank line split across two chunks is seen when one
 * ends with a line break and the next starts with one); erring, it only ever resets early.
 */
export class UpstreamMessageLimit {
  readonly #maxBytes: number;
  readonly #framing: Framing;
  #size = 0;
  #endedWithBreak = false;

  constructor(maxBytes: number, contentType: string | null) {
    this.#maxBytes = maxBytes;
    this.#framing = framingOf(contentType);
  }

  /** Adds a chunk of the body; the error to fail the body with once a message is past the limit. */
  add(chunk: Uint8Array): Error | undefined {
    const n = chunk.length;
    if (n === 0) return undefined;
    const after = this.#framing === 'whole' ? -1 : this.#afterLastBoundary(chunk);
    this.#size = after < 0 ? this.#size + n : n - after;
    this.#endedWithBreak = isBreak(chunk[n - 1]);
    return this.#size > this.#maxBytes ? this.#error() : undefined;
  }

  /** The index just past the last message boundary in `chunk`, or -1. */
  #afterLastBoundary(chunk: Uint8Array): number {
    const n = chunk.length;
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, n);
    let after = -1;
    if (this.#framing === 'lines') {
      // The common case first: a chunk that ends its last line.
      if (isBreak(buffer[n - 1])) return n;
      after = Math.max(buffer.lastIndexOf(LF), buffer.lastIndexOf(CR)) + 1;
      if (after === 0) after = -1;
    } else {
      if (n >= 2 && buffer[n - 1] === LF && buffer[n - 2] === LF) return n;
      for (const blank of BLANK_LINES) {
        const at = buffer.lastIndexOf(blank);
        if (at >= 0) after = Math.max(after, at + blank.length);
      }
    }
    if (after < 0 && this.#endedWithBreak && isBreak(buffer[0])) after = 1;
    return after;
  }

  #error(): Error {
    const mib = this.#maxBytes / (1024 * 1024);
    const limit = Number.isInteger(mib) ? `${mib} MiB` : `${this.#maxBytes} bytes`;
    const what =
      this.#framing === 'whole'
        ? `a response body larger than ${limit}`
        : `more than ${limit} in one ${this.#framing === 'events' ? 'stream event' : 'line of its stream'}`;
    return new Error(
      `The upstream sent ${what}; the request was stopped so that it cannot exhaust the gateway's memory. ` +
        'If the upstream really sends messages this large, raise limits.upstreamMessageLimitBytes.',
    );
  }
}
