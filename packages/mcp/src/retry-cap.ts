/**
 * The longest reconnection delay a server may ask for with `retry:` (10 s). The SDK keeps
 * one timer for its reconnections and `close()` clears only the last one set: a server
 * stream that ended and a call's stream that broke each set one, and the first, at the
 * server's delay, kept the host process up that long after `close()` (`retry: 600000`, ten
 * minutes; up to 24 days). 10 s keeps the reopens of a stream that ends at once within the
 * budget of 10 a minute.
 */
export const MAX_RETRY_MS = 10_000;

const CR = 13;
const LF = 10;
const RETRY_FIELD = [114, 101, 116, 114, 121, 58]; // "retry:"
const BOM = [0xef, 0xbb, 0xbf];
// A `retry:` line longer than this (digits the SDK would read as a huge delay, or garbage)
// is dropped rather than held.
const MAX_RETRY_LINE = 64;

/**
 * Rewrites an event stream's `retry:` lines asking for more than `MAX_RETRY_MS` so that they
 * ask for `MAX_RETRY_MS`; every other byte goes through unchanged. A line that may be a
 * `retry:` line is held back until it ends (a few bytes), whatever the chunking. Lines are
 * read as the SDK's parser reads them (ended by CR, LF or CRLF; a leading BOM skipped).
 */
export class RetryCap {
  private atLineStart = true;
  // The bytes of the current line while it may be a `retry:` line, held back.
  private held: number[] | undefined;
  private dropping = false;
  private bomAt = 0;

  push(chunk: Uint8Array): Uint8Array {
    // Most chunks carry no `retry:` line: they go through as they are.
    if (this.held === undefined && !this.dropping && !mayHoldRetry(chunk, this.atLineStart, this.bomAt)) {
      this.track(chunk);
      return chunk;
    }
    const out: number[] = [];
    for (let i = 0; i < chunk.length; i++) this.byte(chunk[i] as number, out);
    return Uint8Array.from(out);
  }

  /** The stream ended: a line held back goes on (rewritten if need be). */
  end(): Uint8Array {
    const out: number[] = [];
    if (this.held !== undefined) this.release(out);
    this.dropping = false;
    return Uint8Array.from(out);
  }

  /** Keeps the line state over a chunk passed through unchanged. */
  private track(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const last = chunk[chunk.length - 1];
    this.atLineStart = last === CR || last === LF;
  }

  private byte(b: number, out: number[]): void {
    if (this.bomAt < 3) {
      if (b === BOM[this.bomAt]) {
        this.bomAt++;
        out.push(b);
        return;
      }
      this.bomAt = 3;
    }
    if (b === CR || b === LF) {
      if (this.held !== undefined) this.release(out);
      this.dropping = false;
      this.atLineStart = true;
      out.push(b);
      return;
    }
    if (this.dropping) return;
    if (this.held !== undefined) {
      this.held.push(b);
      const n = this.held.length;
      if (n <= RETRY_FIELD.length && b !== RETRY_FIELD[n - 1]) {
        // Not a `retry:` line after all.
        out.push(...this.held);
        this.held = undefined;
      } else if (n > MAX_RETRY_LINE) {
        this.held = undefined;
        this.dropping = true;
      }
      return;
    }
    if (this.atLineStart && b === RETRY_FIELD[0]) this.held = [b];
    else out.push(b);
    this.atLineStart = false;
  }

  /** The held line, ended: as it was, or asking for `MAX_RETRY_MS` if it asked for more. */
  private release(out: number[]): void {
    const line = this.held ?? [];
    this.held = undefined;
    if (line.length < RETRY_FIELD.length) {
      out.push(...line);
      return;
    }
    let start = RETRY_FIELD.length;
    if (line[start] === 32) start++;
    let value = 0;
    for (let i = start; i < line.length; i++) {
      const c = line[i] as number;
      // Not digits only: the SDK ignores it.
      if (c < 48 || c > 57) {
        out.push(...line);
        return;
      }
      value = value * 10 + (c - 48);
    }
    if (start === line.length || value <= MAX_RETRY_MS) out.push(...line);
    else out.push(...RETRY_FIELD, ...new TextEncoder().encode(` ${MAX_RETRY_MS}`));
  }
}

/** Whether `chunk` could start or hold a `retry:` line: an `r` at a line start (or the chunk's own). */
function mayHoldRetry(chunk: Uint8Array, atLineStart: boolean, bomAt: number): boolean {
  if (bomAt < 3) return true;
  if (atLineStart && chunk[0] === RETRY_FIELD[0]) return true;
  for (let at = chunk.indexOf(RETRY_FIELD[0] as number, 1); at !== -1; at = chunk.indexOf(RETRY_FIELD[0] as number, at + 1)) {
    const before = chunk[at - 1];
    if (before === CR || before === LF) return true;
  }
  return false;
}
