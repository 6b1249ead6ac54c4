import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8ChunkDecoder } from './utf8-chunk-decoder.ts';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const utf8 = (text: string): number[] => [...Buffer.from(text, 'utf8')];

/** Decodes `chunks` one by one, then ends the stream. */
function decodeAll(decoder: Utf8ChunkDecoder, chunks: readonly Uint8Array[]): string {
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk);
  return text + decoder.end();
}

/** `whole` cut at `cuts` (positions, any order, repeats allowed). */
function split(whole: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of at) {
    chunks.push(whole.subarray(from, cut));
    from = cut;
  }
  chunks.push(whole.subarray(from));
  return chunks;
}

// Bytes shaped like UTF-8, valid and not: ASCII, characters of every length, a byte-order
// mark, and any byte at all (lone continuation bytes, cut sequences, overlongs, C0/C1, F5–FF).
const piece = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 4 }).map(utf8),
  fc.constantFrom(utf8('\uFEFF'), utf8('é'), utf8('€'), utf8('😀'), utf8('\n'), [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xe0, 0x80, 0xaf]),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }),
);
const streamBytes = fc.array(piece, { maxLength: 24 }).map((pieces) => Uint8Array.from(pieces.flat()));

describe('Utf8ChunkDecoder', () => {
  it('decodes a stream cut anywhere to the text TextDecoder gives for the whole', () => {
    fc.assert(
      fc.property(streamBytes, fc.array(fc.nat(), { maxLength: 8 }), (whole, cuts) => {
        expect(decodeAll(new Utf8ChunkDecoder(), split(whole, cuts))).toBe(new TextDecoder().decode(whole));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same text as a streaming TextDecoder, one byte at a time', () => {
    fc.assert(
      fc.property(streamBytes, (whole) => {
        const ours = new Utf8ChunkDecoder();
        const theirs = new TextDecoder();
        let a = '';
        let b = '';
        for (let i = 0; i < whole.length; i++) {
          a += ours.decode(whole.subarray(i, i + 1));
          b += theirs.decode(whole.subarray(i, i + 1), { stream: true });
        }
        expect(a + ours.end()).toBe(b + theirs.decode());
      }),
      { numRuns: 1000 },
    );
  });

  it('holds back a character cut by the chunk, and only that', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(bytes(0x61, 0xe2, 0x82))).toBe('a');
    expect(decoder.decode(bytes(0xac, 0x62))).toBe('€b');
    expect(decoder.decode(bytes(0xf0, 0x9f))).toBe('');
    expect(decoder.decode(bytes(0x98))).toBe('');
    expect(decoder.decode(bytes(0x80))).toBe('😀');
    expect(decoder.end()).toBe('');
  });

  it('drops a byte-order mark at the start of the stream only, even when cut', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(bytes(0xef, 0xbb))).toBe('');
    expect(decoder.decode(bytes(0xbf, ...utf8('data: \uFEFF')))).toBe('data: \uFEFF');
    expect(decoder.end()).toBe('');
    // After end(), a new stream: its mark is dropped again.
    expect(decoder.decode(Uint8Array.from(utf8('\uFEFFx')))).toBe('x');
  });

  it('ends a stream that stops inside a character with U+FFFD', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.decode(bytes(0x61, 0xf0, 0x9f, 0x98))).toBe('a');
    expect(decoder.end()).toBe('\uFFFD');
    expect(decoder.end()).toBe('');
  });

  it('reads a Uint8Array that is not a Buffer, as a view of its own bytes only', () => {
    const backing = Uint8Array.from([0x7a, ...utf8('hé'), 0x7a]);
    expect(decodeAll(new Utf8ChunkDecoder(), [backing.subarray(1, 3), backing.subarray(3, 4)])).toBe('hé');
  });

  it('keeps a copy of the cut bytes, not the chunk they came in', () => {
    const chunk = Buffer.from([...utf8('x'.repeat(1000)), 0xe2]);
    const decoder = new Utf8ChunkDecoder();
    decoder.decode(chunk);
    // The caller may reuse its buffer: the held byte is the decoder's own.
    chunk.fill(0x41);
    expect(decoder.decode(bytes(0x82, 0xac))).toBe('€');
  });
});
