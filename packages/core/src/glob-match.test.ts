import { describe, expect, it } from 'vitest';
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
