import { describe, expect, it } from 'vitest';

import { parseRateLimitEvent, parseRateLimitHeaders } from './rate-limits.ts';

describe('rate limits', () => {
  it('reads the x-codex-* usage headers and keeps the extra x-codex-<name> families', () => {
    const headers = new Headers({
      'x-codex-primary-used-percent': '42.5',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': '1777936568',
      'x-codex-secondary-used-percent': '10',
      'x-codex-secondary-window-minutes': '10080',
      'x-codex-credits-has-credits': 'false',
      'x-codex-credits-unlimited': 'False',
      'x-codex-plan-type': 'plus',
      'x-codex-other-primary-used-percent': '5',
      'x-codex-other-limit-name': 'other',
      'x-spark-primary-used-percent': '7',
      'x-spark-limit-name': 'Spark',
    });
    expect(parseRateLimitHeaders(headers)).toEqual({
      primary: { usedPercent: 42.5, windowMinutes: 300, resetsAt: 1777936568 },
      secondary: { usedPercent: 10, windowMinutes: 10080 },
      credits: { hasCredits: false, unlimited: false },
      planType: 'plus',
      limits: { 'codex-other': { primary: { usedPercent: 5 }, limitName: 'other' }, spark: { primary: { usedPercent: 7 }, limitName: 'Spark' } },
    });
  });

  it('returns undefined when there are no usage headers', () => {
    expect(parseRateLimitHeaders(new Headers({ 'content-type': 'text/event-stream' }))).toBeUndefined();
  });

  it('reads the codex.rate_limits event', () => {
    expect(
      parseRateLimitEvent({
        type: 'codex.rate_limits',
        rate_limits: { primary: { used_percent: 80, window_minutes: 300, reset_at: 100 } },
        credits: { has_credits: true, balance: 12 },
        plan_type: 'pro',
      }),
    ).toEqual({ primary: { usedPercent: 80, windowMinutes: 300, resetsAt: 100 }, credits: { hasCredits: true, balance: '12' }, planType: 'pro' });
  });
});
