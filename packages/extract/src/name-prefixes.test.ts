import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NamePrefixes } from './name-prefixes.ts';

const prefixesOf = (names: readonly string[]): NamePrefixes => new NamePrefixes({ keys: () => names });

describe('NamePrefixes', () => {
  it('answers whether a run begins an allowed name, compared in place at first and from a set later, for few names and many', () => {
    const name = fc.stringMatching(/^[a-z_]{1,12}$/);
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 12 }), fc.array(fc.stringMatching(/^[a-z_]{1,6}$/), { minLength: 100, maxLength: 140 }), (names, runs) => {
        const prefixes = prefixesOf(names);
        // Past the first asks the answers come from the set: the same answers.
        for (const run of [...runs, ...names, ...names.map((n) => n.slice(0, 1))]) expect(prefixes.has(run), run).toBe(names.some((n) => n.startsWith(run)));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps apart lists whose names join to the same text', () => {
    // Nine names each (a set from the first question), the same characters in all.
    const one = ['ab', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const other = ['a', 'bc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    expect(prefixesOf(one).has('b')).toBe(false);
    expect(prefixesOf(other).has('b')).toBe(true);
    expect(prefixesOf(one).has('ab')).toBe(true);
    expect(prefixesOf(other).has('ab')).toBe(false);
  });

  it('answers for many different lists, more than it keeps sets for', () => {
    for (let k = 0; k < 100; k++) {
      const names = Array.from({ length: 9 }, (_, i) => `tool_${k}_${i}`);
      const prefixes = prefixesOf(names);
      expect(prefixes.has(`tool_${k}_`)).toBe(true);
      expect(prefixes.has(`tool_${k + 100}_`)).toBe(false);
    }
    expect(prefixesOf(['tool_0_0', 'x', 'y', 'z', 'w', 'v', 'u', 't', 's']).has('tool_0_1')).toBe(false);
  });
});
