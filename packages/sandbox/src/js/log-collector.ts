/** Collects console lines up to a byte cap; past it, one marker line and then nothing. */
export class LogCollector {
  readonly lines: string[] = [];
  private bytes = 0;
  private full = false;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Adds a line; returns false once the cap is reached, so the sandbox stops sending. */
  add(line: string): boolean {
    if (this.full) return false;
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (this.bytes + size > this.maxBytes) {
      this.full = true;
      this.lines.push(`[logs truncated at ${this.maxBytes} bytes]`);
      return false;
    }
    this.bytes += size;
    this.lines.push(line);
    return true;
  }
}
