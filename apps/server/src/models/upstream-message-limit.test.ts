import { describe, expect, it } from 'vitest';
import { UpstreamMessageLimit } from './upstream-message-limit.ts';

const bytes = (text: string): Buffer => Buffer.from(text);

/** Feeds `chunks` and returns the index of the first chunk that failed, or -1. */
function failsAt(limit: UpstreamMessageLimit, chunks: string[]): number {
  return chunks.findIndex((chunk) => limit.add(bytes(chunk)) !== undefined);
}

describe('UpstreamMessageLimit', () => {
  it('counts one SSE event up to its blank line, however the chunks fall', () => {
    const limit = new UpstreamMessageLimit(10, 'text/event-stream; charset=utf-8');
    // 9-byte events, each alone under the limit, together far over it.
    expect(failsAt(limit, ['data: ab\n', '\ndata: cd', '\n\ndata:', ' ef\r\n\r\n', 'data: gh\r\r'])).toBe(-1);
    expect(failsAt(new UpstreamMessageLimit(12, 'text/event-stream'), ['data: abcd\n', 'data: efgh\n'])).toBe(1);
  });

  it('fails an event that never ends, and says which limit to raise', () => {
    const limit = new UpstreamMessageLimit(1024, 'text/event-stream');
    limit.add(bytes('data: '));
    const error = limit.add(Buffer.alloc(2048, 'y'));
    expect(error?.message).toMatch(/more than 1024 bytes in one stream event.*limits\.upstreamMessageLimitBytes/su);
  });

  it('counts one line of an NDJSON stream (Ollama)', () => {
    const limit = new UpstreamMessageLimit(10, 'application/x-ndjson');
    expect(failsAt(limit, ['{"a":1}\n{"b', '":2}\n', '{"c":3}\r\n'])).toBe(-1);
    expect(failsAt(limit, ['{"d":"', 'xxxxxxxx'])).toBe(1);
  });

  it('counts the whole body of anything else, line breaks or not', () => {
    const limit = new UpstreamMessageLimit(10, 'application/json');
    expect(failsAt(limit, ['{\n', '"a":\n', '1}\n'])).toBe(-1);
    expect(failsAt(limit, ['\n\n\n\n'])).toBe(0);
    expect(failsAt(new UpstreamMessageLimit(10, null), ['12345', '678901'])).toBe(1);
  });
});
