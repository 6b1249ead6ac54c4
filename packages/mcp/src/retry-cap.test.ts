import { describe, expect, it } from 'vitest';
import { MAX_RETRY_MS, RetryCap } from './retry-cap.ts';

/** `text` through a RetryCap cut at `cuts` (byte offsets). */
function capped(text: string, cuts: number[] = []): string {
  const bytes = new TextEncoder().encode(text);
  const cap = new RetryCap();
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    parts.push(cap.push(bytes.subarray(from, at)));
    from = at;
  }
  parts.push(cap.end());
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.concat(parts));
}

/** Every way of cutting `text` in two and in three. */
function everyCut(text: string, expected: string): void {
  const n = new TextEncoder().encode(text).length;
  for (let a = 0; a <= n; a++) {
    expect(capped(text, [a])).toBe(expected);
    for (let b = a; b <= n; b++) expect(capped(text, [a, b])).toBe(expected);
  }
}

describe('RetryCap', () => {
  it(`rewrites a retry: over ${MAX_RETRY_MS} ms to ${MAX_RETRY_MS}, however the stream is cut`, () => {
    everyCut('retry: 600000\n\n', `retry: ${MAX_RETRY_MS}\n\n`);
    everyCut('id: 1\r\nretry:99999999999999999999\rdata: x\n\n', `id: 1\r\nretry: ${MAX_RETRY_MS}\rdata: x\n\n`);
    everyCut('\uFEFFretry: 600000\n', `\uFEFFretry: ${MAX_RETRY_MS}\n`);
    // The last line, ended by the stream's end.
    everyCut('data: x\n\nretry: 600000', `data: x\n\nretry: ${MAX_RETRY_MS}`);
  });

  it('leaves everything else as it is', () => {
    for (const text of ['retry: 20\n\n', `retry: ${MAX_RETRY_MS}\n`, 'retry: 1e9\n', 'retry:\n', 'retry\n', 'retryx: 600000\n', 'data: retry: 600000\n', ' retry: 600000\n', 'data: r\nrr: 1\nre\n', 'r', 'ret']) {
      everyCut(text, text);
    }
  });

  it('drops a retry: line too long to be held', () => {
    expect(capped(`retry: ${'0'.repeat(100)}600000\ndata: x\n\n`)).toBe('\ndata: x\n\n');
  });
});
