import { describe, expect, it } from 'vitest';
import { propertyKey } from './property-key.ts';

describe('propertyKey', () => {
  it('returns the characters of text[start, end), whether seen before or not', () => {
    const text = 'x limit=10, query="a", 天气=1, __proto__=2, 12=3, constructor=4 ';
    for (const key of ['limit', 'query', '天气', '__proto__', '12', 'constructor', 'x', ' ']) {
      const at = text.indexOf(key);
      expect(propertyKey(text, at, at + key.length)).toBe(key);
      expect(propertyKey(text, at, at + key.length)).toBe(key);
    }
  });

  it('returns the right key when many keys share the cache (evictions, equal hashes of other keys)', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i.toString(36)}`);
    for (let round = 0; round < 2; round++) {
      for (const key of keys) expect(propertyKey(` ${key}=`, 1, 1 + key.length)).toBe(key);
    }
  });

  it('cuts out empty and long keys without keeping them', () => {
    const long = 'a'.repeat(100);
    expect(propertyKey(`(${long})`, 1, 101)).toBe(long);
    expect(propertyKey('abc', 1, 1)).toBe('');
  });
});
