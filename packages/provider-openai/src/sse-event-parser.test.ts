import { describe, expect, it } from 'vitest';
import { createSseEventParser } from './sse-event-parser.ts';
import type { SseEvent } from './sse-event-parser.ts';

/** Parses `body` fed in pieces of `size` characters. */
function parse(body: string, size = body.length): SseEvent[] {
  const parser = createSseEventParser();
  const out: SseEvent[] = [];
  for (let i = 0; i < body.length; i += size) out.push(...parser.push(body.slice(i, i + size)));
  out.push(...parser.end());
  return out;
}

const body = 'data: {"a":1}\n\nevent: error\ndata: {"error":{"message":"x"}}\n\n: keep-alive\n\ndata: [DONE]\n\n';
const expected: SseEvent[] = [
  { event: undefined, data: '{"a":1}' },
  { event: 'error', data: '{"error":{"message":"x"}}' },
  { event: undefined, data: '[DONE]' },
];

describe('createSseEventParser', () => {
  it('reads data and event lines, dispatching at each blank line and skipping comments', () => {
    expect(parse(body)).toEqual(expected);
  });

  it('gives the same events whatever the chunking, one character at a time included', () => {
    for (const size of [1, 2, 3, 7, 16]) expect(parse(body, size)).toEqual(expected);
  });

  it('accepts CRLF and CR line ends, a CRLF split between two pushes counting once', () => {
    const crlf = 'data: a\r\n\r\ndata: b\r\r';
    expect(parse(crlf)).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
    for (const size of [1, 2, 3, 8]) expect(parse(crlf, size)).toEqual(parse(crlf));
  });

  it('joins several data lines with a newline and drops only one leading space', () => {
    expect(parse('data:x\ndata:  y\ndata\n\n')).toEqual([{ event: undefined, data: 'x\n y\n' }]);
  });

  it('skips id, retry, unknown fields and events without data', () => {
    expect(parse('id: 1\nretry: 10\nfoo: bar\n\nevent: ping\n\ndata: z\n\n')).toEqual([{ event: undefined, data: 'z' }]);
  });

  it('dispatches a last event whose blank line never came', () => {
    expect(parse('data: {"a":1}\n\ndata: [DONE]')).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: '[DONE]' },
    ]);
  });
});

describe('createSseEventParser with a sink', () => {
  it('hands the sink the events an array would get, in any chunking', () => {
    const body = 'event: error\ndata: {"e":1}\n\n: comment\r\ndata: a\r\ndata: b\r\n\r\nid: 2\ndata:x\n\ndata: last';
    for (const size of [1, 2, 5, body.length]) {
      const viaArray = createSseEventParser();
      const viaSink = createSseEventParser();
      const expected: SseEvent[] = [];
      const got: SseEvent[] = [];
      const sink = (event: string | undefined, data: string): void => void got.push({ event, data });
      for (let at = 0; at < body.length; at += size) {
        expected.push(...viaArray.push(body.slice(at, at + size)));
        expect(viaSink.push(body.slice(at, at + size), sink)).toEqual([]);
      }
      expected.push(...viaArray.end());
      viaSink.end(sink);
      expect(got).toEqual(expected);
      expect(got).toHaveLength(4);
    }
  });
});
