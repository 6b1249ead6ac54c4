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
// An SSE line ends at CRLF, LF or CR, and an event at an empty line: every blank line holds one
// of these pairs, and each pair is one (a CR followed by LF is one line break, never a blank line).
const BLANK_LINES = [Buffer.from('\n\n'), Buffer.from('\n\r'), Buffer.from('\r\r')] as const;
// NDJSON lines end at LF only: Ollama's client and the providers' framers split there, so a
// CR is part of the line they hold.
const LINE_BREAKS = [Buffer.from('\n')] as const;

/** The message a body is cut into, from its media type. */
function partOf(contentType: string | null): UpstreamMessagePart {
  const type = contentType?.toLowerCase() ?? '';
  if (type.includes('text/event-stream')) return 'event';
  // Ollama's streams (`application/x-ndjson`) and other JSON-lines bodies.
  if (type.includes('ndjson') || type.includes('jsonl') || type.includes('json-seq')) return 'line';
  return 'body';
}

/** Whether the last byte of one chunk and the first of the next make a blank line of an SSE stream. */
function isBlankSeam(last: number | undefined, first: number | undefined): boolean {
  return (last === LF && (first === LF || first === CR)) || (last === CR && first === CR);
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
 * Boundaries are the readers' own, so that no message they hold escapes the count: an SSE
 * event ends at a blank line in any of its line-break forms (also one split across two
 * chunks, but never at a CRLF split between them), an NDJSON line at LF only.
 *
 * @example
 * const limit = new UpstreamMessageLimit({ maxBytes: 16 << 20, contentType: response.headers.get('content-type'), setting: 'maxMessageBytes' });
 * const tooLarge = limit.add(chunk); // an UpstreamMessageTooLargeError once a message is past the limit
 */
export class UpstreamMessageLimit {
  readonly #options: UpstreamMessageLimitOptions;
  #part: UpstreamMessagePart;
  #size = 0;
  /** The last byte of the chunk before, for a blank line split between two chunks. */
  #last: number | undefined;

  constructor(options: UpstreamMessageLimitOptions) {
    this.#options = options;
    this.#part = partOf(options.contentType);
  }

  /**
   * Counts every byte from here on as one message, the whole body (`part` becomes `'body'`):
   * for a reader that holds the body whole whatever its media type frames it as (`text()`,
   * `json()`, an error's text). Called before the first chunk.
   */
  countWhole(): void {
    this.#part = 'body';
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
    this.#last = chunk[n - 1];
    return this.#size > max ? this.#error() : undefined;
  }

  #error(): UpstreamMessageTooLargeError {
    const { maxBytes, setting, origin } = this.#options;
    return new UpstreamMessageTooLargeError({ limitBytes: maxBytes, part: this.#part, setting, ...(origin === undefined ? {} : { origin }) });
  }

  /**
   * Whether a message that ends before `after` in `chunk` is past the limit: the one carried in
   * from earlier chunks, or, in a chunk larger than the limit, one that lies whole in it. Linear
   * in the chunk however many messages it holds (each separator's next position is searched
   * for once, onwards from the last).
   */
  #endsMessagePastLimit(chunk: Uint8Array, after: number): boolean {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const max = this.#options.maxBytes;
    // The line breaks that end a message are not part of it (the common ones: `\n`, `\n\n`).
    const ending = this.#part === 'line' ? 1 : 2;
    let start = 0;
    let size = this.#size;
    if (this.#part === 'event' && isBlankSeam(this.#last, buffer[0])) {
      // A blank line split between the last chunk and this one ends the message carried in.
      if (size + 1 - ending > max) return true;
      if (after <= max) return false;
      size = 0;
      start = 1;
    }
    const separators = this.#part === 'line' ? LINE_BREAKS : BLANK_LINES;
    const next = separators.map((separator) => buffer.indexOf(separator, start));
    while (start < after) {
      let end = -1;
      for (let i = 0; i < separators.length; i++) {
        const separator = separators[i] as Buffer;
        let at = next[i] as number;
        if (at >= 0 && at < start) next[i] = at = buffer.indexOf(separator, start);
        if (at >= 0 && (end < 0 || at + separator.length < end)) end = at + separator.length;
      }
      if (end < 0 || end > after) return false;
      if (size + end - start - ending > max) return true;
      // Past the message carried in, only a chunk larger than the limit can hold one past it whole.
      if (after <= max) return false;
      size = 0;
      start = end;
    }
    return false;
  }

  /** The index just past the last message boundary in `chunk`, or -1. */
  #afterLastBoundary(chunk: Uint8Array): number {
    const n = chunk.length;
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, n);
    let after = -1;
    if (this.#part === 'line') {
      // The common case first: a chunk that ends its last line.
      if (buffer[n - 1] === LF) return n;
      after = buffer.lastIndexOf(LF) + 1;
      return after === 0 ? -1 : after;
    } else {
      if (n >= 2 && buffer[n - 1] === LF && buffer[n - 2] === LF) return n;
      for (const blank of BLANK_LINES) {
        const at = buffer.lastIndexOf(blank);
        if (at >= 0) after = Math.max(after, at + blank.length);
      }
    }
    if (after < 0 && isBlankSeam(this.#last, buffer[0])) after = 1;
    return after;
  }
}
