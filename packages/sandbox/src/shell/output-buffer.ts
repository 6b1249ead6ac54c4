/**
 * Keeps the first `maxBytes` of a command's stdout and stderr together, discarding the
 * rest as it arrives, so memory stays flat whatever the command prints.
 */
export class OutputBuffer {
  private readonly chunks: { stdout: Buffer[]; stderr: Buffer[] } = { stdout: [], stderr: [] };
  private remaining: number;
  truncated = false;

  constructor(maxBytes: number) {
    this.remaining = maxBytes;
  }

  push(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.remaining <= 0) {
      this.truncated = true;
      return;
    }
    if (chunk.length > this.remaining) {
      this.chunks[stream].push(chunk.subarray(0, this.remaining));
      this.remaining = 0;
      this.truncated = true;
      return;
    }
    this.chunks[stream].push(chunk);
    this.remaining -= chunk.length;
  }

  text(stream: 'stdout' | 'stderr'): string {
    return Buffer.concat(this.chunks[stream]).toString('utf8');
  }
}
