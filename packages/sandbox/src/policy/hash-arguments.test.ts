import { describe, expect, it } from 'vitest';
import { hashArguments } from './hash-arguments.ts';

describe('hashArguments', () => {
  it('hashes equal arguments equally whatever the key order', () => {
    expect(hashArguments({ a: 1, b: { c: 2, d: 3 } })).toBe(hashArguments({ b: { d: 3, c: 2 }, a: 1 }));
    expect(hashArguments({ a: 1 })).not.toBe(hashArguments({ a: 2 }));
  });

  it('hashes cyclic data instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(hashArguments(cyclic)).toMatch(/^[0-9a-f]{64}$/);
  });
});
