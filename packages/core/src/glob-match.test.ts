import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { globMatch } from './glob-match.ts';

describe('globMatch', () => {
  it.each([
    ['search', 'search', true],
    ['search', 'search2', false],
    ['*', 'anything.at_all', true],
    ['*', '', true],
    ['files.*', 'files.read', true],
    ['files.*', 'files', false],
    ['*_read', 'db_read', true],
    ['*_read', 'db_write', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['**', 'x', true],
    ['', '', true],
    ['', 'x', false],
  ])('matches pattern %j against %j: %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  it('treats regex characters literally', () => {
    expect(globMatch('a.c', 'abc')).toBe(false);
    expect(globMatch('a+', 'a+')).toBe(true);
  });

  it('handles many stars against a long non-matching name', () => {
    expect(globMatch('*a*a*a*a*a*a*a*b', 'a'.repeat(64))).toBe(false);
  });
});

describe('globMatch against a reference', () => {
  it('agrees with an anchored regex translation on random names and patterns', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '_');
    const name = fc.string({ unit: alphabet, maxLength: 12 });
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '.', '_', '*'), maxLength: 8 });
    fc.assert(
      fc.property(pattern, name, (p, n) => {
        // Reference only: the patterns are tiny and generated here, never model output.
        const escaped = p.replace(/[.]/g, '\\.').replace(/\*/g, '.*');
        expect(globMatch(p, n)).toBe(new RegExp(`^${escaped}$`, 's').test(n));
      }),
      { numRuns: 500 },
    );
  });
});
