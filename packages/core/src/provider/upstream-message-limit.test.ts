import { describe, expect, it } from 'vitest';
import { UpstreamMessageTooLargeError } from '../errors.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, UpstreamMessageLimit, resolveMaxMessageBytes } from './upstream-message-limit.ts';

const bytes = (text: string): Buffer => Buffer.from(text);

/** Feeds `chunks` and returns the index of the first chunk that failed, or -1. */
function failsAt(limit: UpstreamMessageLimit, chunks: string[]): number {
  return chunks.findIndex((chunk) => limit.add(bytes(chunk)) !== undefined);
}

const limitOf = (maxBytes: number, contentType: string | null): UpstreamMessageLimit => new UpstreamMessageLimit({ maxBytes, contentType, setting: 'limits.upstreamMessageLimitBytes' });

describe('UpstreamMessageLimit', () => {
  it('counts one SSE event up to its blank line, however the chunks fall', () => {
    const limit = limitOf(10, 'text/event-stream; charset=utf-8');
    // 9-byte events, each alone under the limit, together far over it.
    expect(failsAt(limit, ['data: ab\n', '\ndata: cd', '\n\ndata:', ' ef\r\n\r\n', 'data: gh\r\r'])).toBe(-1);
    expect(failsAt(limitOf(12, 'text/event-stream'), ['data: abcd\n', 'data: efgh\n'])).toBe(1);
  });

  it('fails an event that never ends, and says which limit to raise', () => {
    const limit = limitOf(1024, 'text/event-stream');
    limit.add(bytes('data: '));
    const error = limit.add(Buffer.alloc(2048, 'y'));
    expect(error?.message).toMatch(/more than 1024 bytes in one stream event.*raise limits\.upstreamMessageLimitBytes\./su);
    expect(UpstreamMessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'UpstreamMessageTooLargeError', limitBytes: 1024, part: 'event', setting: 'limits.upstreamMessageLimitBytes' });
  });

  it('names where the body came from when told, in MiB when the limit is whole MiB', () => {
    const limit = new UpstreamMessageLimit({ maxBytes: 1024 * 1024, contentType: 'application/json', setting: 'maxMessageBytes', origin: 'http://127.0.0.1:8080' });
    const error = limit.add(Buffer.alloc(1024 * 1024 + 1));
    expect(error?.message).toMatch(/^The upstream at http:\/\/127\.0\.0\.1:8080 sent a response body larger than 1 MiB;.*raise maxMessageBytes\.$/su);
    expect(error?.part).toBe('body');
  });

  it('refuses a message that ends in the chunk that takes it past the limit, or lies whole in one chunk', () => {
    // 10 bytes carried in, 3 more and the line break in the next chunk.
    expect(failsAt(limitOf(12, 'application/x-ndjson'), ['{"a":"1234', '56"\n{}\n'])).toBe(1);
    expect(failsAt(limitOf(13, 'application/x-ndjson'), ['{"a":"1234', '56"\n{}\n'])).toBe(-1);
    expect(failsAt(limitOf(12, 'application/x-ndjson'), ['{}\n{"a":"123456"}\n{}\n'])).toBe(0);
    expect(failsAt(limitOf(10, 'text/event-stream'), ['data: 1234', '5\n\ndata: 1\n\n'])).toBe(1);
    expect(failsAt(limitOf(11, 'text/event-stream'), ['data: 1234', '5\n\ndata: 1\n\n'])).toBe(-1);
    expect(failsAt(limitOf(10, 'text/event-stream'), ['data: 1\n\ndata: 12345\n\n'])).toBe(0);
    // A blank line split across two chunks.
    expect(failsAt(limitOf(10, 'text/event-stream'), ['data: 12345\n', '\ndata: 1\n\n'])).toBe(0);
    expect(failsAt(limitOf(12, 'text/event-stream'), ['data: 12345\n', '\ndata: 1\n\n'])).toBe(-1);
  });

  it('stays linear in a chunk of many small messages, after a message carried in near the limit', () => {
    const events = Buffer.from('a\n\n'.repeat(1 << 20));
    const limit = limitOf(10, 'text/event-stream');
    expect(limit.add(Buffer.from('data: 12'))).toBeUndefined();
    expect(limit.add(events)).toBeUndefined();
    const lines = limitOf(10, 'application/x-ndjson');
    expect(lines.add(Buffer.from('{"a":"12'))).toBeUndefined();
    expect(lines.add(Buffer.from('"}\n'.repeat(1 << 20)))).toBeUndefined();
    expect(limitOf(10, 'application/x-ndjson').add(Buffer.from(`${'1\n'.repeat(1000)}12345678901\n`))).toBeDefined();
  });

  it('counts one line of an NDJSON stream (Ollama)', () => {
    const limit = limitOf(10, 'application/x-ndjson');
    expect(failsAt(limit, ['{"a":1}\n{"b', '":2}\n', '{"c":3}\r\n'])).toBe(-1);
    expect(failsAt(limit, ['{"d":"', 'xxxxxxxx'])).toBe(1);
  });

  it('does not take a CRLF split across two chunks for a blank line (an event that never ends is still counted)', () => {
    // One event whose lines end in CRLF, each chunk ending between the CR and the LF: no blank line anywhere.
    const chunks = ['data: 12345\r', ...Array.from({ length: 10 }, () => '\ndata: 12345\r')];
    expect(failsAt(limitOf(40, 'text/event-stream'), chunks)).toBeGreaterThan(0);
    // A real blank line split the same ways still ends the event.
    expect(failsAt(limitOf(14, 'text/event-stream'), ['data: 12345\r\n', '\r\ndata: 12345\r', '\n\r', '\ndata: 1\n\n'])).toBe(-1);
    expect(failsAt(limitOf(14, 'text/event-stream'), ['data: 12345\r', '\r', 'data: 12345\n', '\r\n', 'data: 1\r\r'])).toBe(-1);
  });

  it('ends an event at every form of blank line the SSE format allows (LF, CR, CRLF mixed)', () => {
    const events = ['data: 1\n\r\n', 'data: 2\n\r', 'data: 3\r\n\n', 'data: 4\r\n\r', 'data: 5\r\r'].join('').repeat(20);
    expect(failsAt(limitOf(12, 'text/event-stream'), [events])).toBe(-1);
  });

  it('ends an NDJSON line at LF only: a CR is part of the line (the readers split at LF)', () => {
    // Ollama's client and the framer split at \n: a line of CRs and no LF is one line to them.
    expect(failsAt(limitOf(10, 'application/x-ndjson'), ['{"a":"1\r', '2\r3\r4\r5\r6\r7\r"}'])).toBe(1);
    expect(failsAt(limitOf(10, 'application/x-ndjson'), ['{"a":"1\r2\r3\r4\r5\r6\r7\r"}\n'])).toBe(0);
    expect(failsAt(limitOf(10, 'application/x-ndjson'), ['{"a":1}\r\n{"b":2}\r', '\n{"c":3}\r\n'])).toBe(-1);
  });

  it('counts the whole body of anything else, line breaks or not', () => {
    const limit = limitOf(10, 'application/json');
    expect(failsAt(limit, ['{\n', '"a":\n', '1}\n'])).toBe(-1);
    expect(failsAt(limit, ['\n\n\n\n'])).toBe(0);
    expect(failsAt(limitOf(10, null), ['12345', '678901'])).toBe(1);
  });
});

describe('resolveMaxMessageBytes', () => {
  it('gives 16 MiB by default, and takes 0 (no limit) or a whole number of bytes', () => {
    expect(resolveMaxMessageBytes(undefined, 'maxMessageBytes')).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(16 * 1024 * 1024);
    expect(resolveMaxMessageBytes(0, 'maxMessageBytes')).toBe(0);
    expect(resolveMaxMessageBytes(1000, 'maxMessageBytes')).toBe(1000);
  });

  it('refuses anything else, naming the option', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => resolveMaxMessageBytes(bad, 'maxMessageBytes')).toThrow(/^maxMessageBytes must be a whole number of bytes \(0 turns the limit off\); got /u);
    }
  });
});
