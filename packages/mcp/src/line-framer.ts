/** What one chunk of a newline-delimited stream yielded. */
export interface FramedChunk {
  /** Complete lines, without their `\n` (and a trailing `\r`). */
  lines: string[];
  /** A line grew past the cap; it was discarded and the stream cannot be trusted further. */
  overflow: boolean;
}

/**
 * Splits a byte stream into lines with a cap on one line's size, in time and memory
 * linear in the input: partial lines are kept as a list of chunks, never re-concatenated
 * per chunk.
 */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly maxLineBytes: number;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  push(chunk: Buffer): FramedChunk {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10 /* \n */, start);
      if (end === -1) break;
      const part = chunk.subarray(start, end);
      if (this.pendingBytes + part.length > this.maxLineBytes) return this.overflow(lines);
      lines.push(this.take(part));
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.pendingBytes + rest.length > this.maxLineBytes) return this.overflow(lines);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return { lines, overflow: false };
  }

  private take(last: Buffer): string {
    const bytes = this.pending.length === 0 ? last : Buffer.concat([...this.pending, last]);
    this.pending = [];
    this.pendingBytes = 0;
    const text = bytes.toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }

  private overflow(lines: string[]): FramedChunk {
    this.pending = [];
    this.pendingBytes = 0;
    return { lines, overflow: true };
  }
}
