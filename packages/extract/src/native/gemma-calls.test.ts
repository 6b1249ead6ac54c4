import { describe, expect, it } from 'vitest';
import { FUNCTIONGEMMA_QUOTE, GEMMA_QUOTE, parseGemmaCall } from './gemma-calls.ts';

function read(body: string, quote: string): { name: string; args: Record<string, unknown> | undefined } | undefined {
  const call = parseGemmaCall(body, 0, body.length, quote);
  return call === undefined ? undefined : { name: call.name, args: call.args };
}

describe('parseGemmaCall: a key right after a value without a comma', () => {
  // Decided for both dialects (they share the grammar): after a closing quote or bracket a key
  // cannot be part of the value, so reading it loses nothing; vLLM reads it for FunctionGemma.
  it('is read in Gemma 4 after a quoted string, a list and an object', () => {
    const q = GEMMA_QUOTE;
    expect(read(`call:f{a:${q}x${q}b:2,c:[1,2]d:{e:1}g:true}`, q)).toEqual({ name: 'f', args: { a: 'x', b: 2, c: [1, 2], d: { e: 1 }, g: true } });
    expect(read(`call:f{a:${q}x${q} ${q}k${q}:2}`, q)).toEqual({ name: 'f', args: { a: 'x', k: 2 } });
  });

  it('is read in FunctionGemma the same way', () => {
    const q = FUNCTIONGEMMA_QUOTE;
    expect(read(`call:f{city:${q}NYC${q}count:${q}3${q}}`, q)).toEqual({ name: 'f', args: { city: 'NYC', count: '3' } });
  });

  it('is not read after a bare value, which runs to the comma or brace (its text keeps the space)', () => {
    expect(read('call:f{n:1 m:2}', GEMMA_QUOTE)).toEqual({ name: 'f', args: { n: '1 m:2' } });
  });

  it('does not accept any other character between a value and the next key', () => {
    expect(read(`call:f{a:${GEMMA_QUOTE}x${GEMMA_QUOTE};b:2}`, GEMMA_QUOTE)?.args).toBeUndefined();
  });
});
