import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelayFromText } from './retry-after.ts';

describe('parseRetryAfter', () => {
  it('prefers retry-after-ms, then retry-after seconds, then an HTTP date', () => {
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }) })).toBe(1500);
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': '3' }) })).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now })).toBe(10_000);
  });

  it('falls back to the message when no header says', () => {
    expect(parseRetryAfter({ headers: new Headers(), message: 'Rate limit reached. Please try again in 11.05s.' })).toBe(11_050);
  });

  it('returns at most a week, whatever a header or the message asks for', () => {
    const week = 7 * 24 * 60 * 60 * 1000;
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': '99999999999999980000' }) })).toBe(week);
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after-ms': '1e300' }) })).toBe(week);
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }), now: 0 })).toBe(week);
    expect(parseRetryAfter({ message: 'Try again in 99999999 hours.' })).toBe(week);
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': '604800' }) })).toBe(week);
    expect(parseRetryAfter({ headers: new Headers({ 'retry-after': '604799' }) })).toBe(week - 1000);
  });

  it('returns undefined when nothing says how long', () => {
    expect(parseRetryAfter({ headers: new Headers(), message: 'slow down' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});

describe('retryDelayFromText', () => {
  it.each([
    ['Try again in 35 seconds.', 35_000],
    ['try again in 250ms', 250],
    ['Please try again in 2s', 2000],
    ['Please try again in 1m30s.', 90_000],
    ['Please try again in 6m0s', 360_000],
    ['Try again in 2 minutes', 120_000],
    ['try again in 1 hour', 3_600_000],
  ])('reads %j', (text, ms) => {
    expect(retryDelayFromText(text)).toBe(ms);
  });

  it('ignores texts without a unit or a number', () => {
    expect(retryDelayFromText('try again in a moment')).toBeUndefined();
    expect(retryDelayFromText('try again in 5 fortnights')).toBeUndefined();
    expect(retryDelayFromText('later')).toBeUndefined();
  });
});
