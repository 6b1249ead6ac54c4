import { describe, expect, it } from 'vitest';
import { addUsage } from './add-usage.ts';

describe('addUsage', () => {
  it('returns the other side when one is absent', () => {
    const u = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
    expect(addUsage(undefined, u)).toBe(u);
    expect(addUsage(u, undefined)).toBe(u);
    expect(addUsage(undefined, undefined)).toBeUndefined();
  });

  it('adds every count, keeping cached and reasoning tokens when either side has them', () => {
    expect(
      addUsage(
        { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 4 },
        { inputTokens: 1, outputTokens: 2, totalTokens: 3, reasoningTokens: 7 },
      ),
    ).toEqual({ inputTokens: 11, outputTokens: 7, totalTokens: 18, cachedInputTokens: 4, reasoningTokens: 7 });
  });
});
