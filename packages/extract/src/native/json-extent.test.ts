import { describe, expect, it } from 'vitest';
import { tryJson } from './json-extent.ts';

describe('tryJson (JSON bodies the model wrote)', () => {
  it('keeps a number JSON cannot hold as its text, as core reads Hermes JSON', () => {
    const big = `1${'0'.repeat(400)}`;
    expect(tryJson('1e400')).toEqual({ value: '1e400' });
    expect(tryJson('-1e400')).toEqual({ value: '-1e400' });
    expect(tryJson(big)).toEqual({ value: big });
    expect(tryJson('12345678901234567890')).toEqual({ value: '12345678901234567890' });
    expect(tryJson('9007199254740993')).toEqual({ value: '9007199254740993' });
    expect(tryJson(`{"id": 12345678901234567890, "n": [1, {"x": ${big}}], "s": "1e400"}`)).toEqual({ value: { id: '12345678901234567890', n: [1, { x: big }], s: '1e400' } });
  });

  it('keeps every number it reads exactly, and what is not JSON undefined', () => {
    expect(tryJson('{"a": 1.5, "b": -3, "c": 0.1, "d": 1e20, "e": 9007199254740991, "f": 1e-400}')).toEqual({ value: { a: 1.5, b: -3, c: 0.1, d: 1e20, e: 9007199254740991, f: 0 } });
    expect(tryJson('{"__proto__": {"n": 1e400}}')?.value).toEqual(JSON.parse('{"__proto__": {"n": "1e400"}}'));
    expect(Object.getPrototypeOf(tryJson('{"__proto__": {"n": 1e400}}')?.value)).toBe(Object.prototype);
    expect(tryJson('{"a": 1e400')).toBeUndefined();
    expect(tryJson('not json')).toBeUndefined();
  });

  it('walks deep values without recursion', () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    expect(tryJson(deep)).toBeDefined();
    // Too deep for core's reader: not read, rather than read wrong.
    expect(tryJson(`${'['.repeat(5000)}1e400${']'.repeat(5000)}`)).toBeUndefined();
  });
});
