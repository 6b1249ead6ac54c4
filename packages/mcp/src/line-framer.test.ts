import { describe, expect, it } from 'vitest';
import { LineFramer } from './line-framer.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('LineFramer', () => {
  it('yields complete lines across chunk boundaries, multi-byte characters included', () => {
    const framer = new LineFramer(100);
    const euro = bytes('{"a":"€"}\n');
    expect(framer.push(euro.subarray(0, 7))).toEqual({ lines: [], overflow: false });
    expect(framer.push(Buffer.concat([euro.subarray(7), bytes('{"b":1}\r\n{"c"')]))).toEqual({ lines: ['{"a":"€"}', '{"b":1}'], overflow: false });
    expect(framer.push(bytes(':2}\n'))).toEqual({ lines: ['{"c":2}'], overflow: false });
  });

  it('reports an overflow for a line past the cap, whether it ends in this chunk or not', () => {
    const framer = new LineFramer(10);
    expect(framer.push(bytes('short\n0123456789abc'))).toEqual({ lines: ['short'], overflow: true });
    const other = new LineFramer(10);
    expect(other.push(bytes('01234567')).overflow).toBe(false);
    expect(other.push(bytes('89ab\n'))).toEqual({ lines: [], overflow: true });
  });

  it('handles a long stream of one-byte chunks in linear time', () => {
    const framer = new LineFramer(1 << 20);
    const line = 'x'.repeat(200_000);
    let out: string[] = [];
    for (const byte of bytes(`${line}\n`)) out = out.concat(framer.push(Buffer.of(byte)).lines);
    expect(out).toEqual([line]);
  });
});
