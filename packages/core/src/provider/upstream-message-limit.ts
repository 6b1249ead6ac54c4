import { UpstreamMessageTooLargeError } from '../errors.ts';
import type { UpstreamMessagePart } from '../errors.ts';

/**
 * The default largest upstream message, in bytes (16 MiB), of every provider's
 * `maxMessageBytes` and the gateway's `limits.upstreamMessageLimitBytes`: far above any real
 * message (a chat completion, a Responses `response.completed` event with a generated
 * image), far below what would take the process down.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * A `maxMessageBytes` option checked and resolved: the default when absent, 0 (no limit) or
 * a whole number of bytes.
 *
 * @throws RangeError for anything else, naming `setting`.
 */
export function resolveMaxMessageBytes(value: number | undefined, setting: string): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${setting} must be a whole number of bytes (0 turns the limit off); got ${String(value)}.`);
  }
  return value;
}

const LF = 10;
const CR = 13;
const BLANK_LINES = [Buffer.from('\n\n'), Buffer.from('\r\n\r\n'), Buffer.from('\r\r')] as const;

/** The message a body is cut into, from its media type. */
function partOf(contentType: string | null): UpstreamMessagePart {
  const type = contentType?.toLowerCase() ?? '';
  if (type.includes('text/event-stream')) return 'event';
  // Ollama's streams (`application/x-ndjson`) and other JSON-lines bodies.
  if (type.includes('ndjson') || type.includes('jsonl') || type.includes('json-seq')) return 'line';
  return 'body';
}

function isBreak(byte: number | undefined): boolean {
  return byte === LF || byte === CR;
}

/** Options of `UpstreamMessageLimit`. */
export interface UpstreamMessageLimitOptions {
  /** The largest message, in bytes (greater than 0). */
  maxBytes: number;
  /** The body's `Content-Type`: says whether a message is an SSE event, an NDJSON line or the whole body. */
  contentType: string | null;
  /** The option that raises the limit, as the error names it (`limits.upstreamMessageLimitBytes`). */
  setting: string;
  /** Where the body comes from, for the error (an origin, never a path or query). */
  origin?: string;
}

/**
 * Counts an upstream body's bytes against the largest message a reader may hold: one event
 * of a `text/event-stream` (up to its blank line), one line of an NDJSON stream, or the whole
 * body of anything else. Every reader of a body (the SDKs' line splitters, `JSON.parse`)
 * holds a message whole before it can use it, and some re-scan it on every chunk, so an
 * upstream that never ends its message would grow the process and burn its CPU without bound.
 *
 * The event boundary is found per chunk (a blank line split across two chunks is seen when one
 * ends with a line break and the next starts with one); erring, it only ever resets early.
 *
 * @example
 * const limit = new UpstreamMessageLimit({ maxBytes: 16 << 20, contentType: response.headers.get('content-type'), setting: 'maxMessageBytes' });
 * const tooLarge = limit.add(chunk); // an UpstreamMessageTooLargeError once a message is past the limit
 */
export class UpstreamMessageLimit {
  readonly #options: UpstreamMessageLimitOptions;
  readonly #part: UpstreamMessagePart;
  #size = 0;
  #endedWithBreak = false;

  constructor(options: UpstreamMessageLimitOptions) {
    this.#options = options;
    this.#part = partOf(options.contentType);
  }

  /** Adds a chunk of the body; the error to fail the body with once a message is past the limit. */
  add(chunk: Uint8Array): UpstreamMessageTooLargeError | undefined {
    const n = chunk.length;
    if (n === 0) return undefined;
    const max = this.#options.maxBytes;
    if (this.#part === 'body') {
      this.#size += n;
      return this.#size > max ? this.#error() : undefined;
    }
    const after = this.#afterLastBoundary(chunk);
    if (after < 0) {
      this.#size += n;
    } else {
      // The chunk ends one or more messages: the one begun before it, and any it holds whole.
      // Only looked at when one of them could be past the limit (rare: a real stream's
      // messages are far below it), so that a chunk costs one search from its end.
      if ((this.#size + after > max || after > max) && this.#endsMessagePastLimit(chunk, after)) return this.#error();
      this.#size = n - after;
    }
    this.#endedWithBreak = isBreak(chunk[n - 1]);
    return this.#size > max ? this.#error() : undefined;
  }

  #error(): UpstreamMessageTooLargeError {
    const { maxBytes, setting, origin } = this.#options;
    return new UpstreamMessageTooLargeError({ limitBytes: maxBytes, part: this.#part, setting, ...(origin === undefined ? {} : { origin }) });
  }

  /** Whether a message that ends before `after` in `chunk` (the one carried in, or one whole in the chunk) is past the limit. */
  #endsMessagePastLimit(chunk: Uint8Array, after: number): boolean {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const max = this.#options.maxBytes;
    // The line breaks that end a message are not part of it (the common ones: `\n`, `\n\n`).
    const ending = this.#part === 'line' ? 1 : 2;
    let start = 0;
    let size = this.#size;
    while (start < after) {
      const end = start === 0 && this.#endedWithBreak && isBreak(buffer[0]) ? 1 : this.#nextBoundary(buffer, start);
      if (end < 0 || end > after) return false;
      if (size + end - start - ending > max) return true;
      size = 0;
      start = end;
    }
    return false;
  }

  /** The index just past the first message boundary in `buffer` at or after `from`, or -1. */
  #nextBoundary(buffer: Buffer, from: number): number {
    let next = -1;
    const closer = (at: number, length: number): void => {
      if (at >= 0 && (next < 0 || at + length < next)) next = at + length;
    };
    if (this.#part === 'line') {
      closer(buffer.indexOf(LF, from), 1);
      closer(buffer.indexOf(CR, from), 1);
    } else {
      for (const blank of BLANK_LINES) closer(buffer.indexOf(blank, from), blank.length);
    }
    return next;
  }

  /** The index just past the last message boundary in `chunk`, or -1. */
  #afterLastBoundary(chunk: Uint8Array): number {
    const n = chunk.length;
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, n);
    let after = -1;
    if (this.#part === 'line') {
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
}
