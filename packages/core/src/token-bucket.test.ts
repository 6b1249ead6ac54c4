import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.ts';

describe('TokenBucket', () => {
  it('allows a burst of capacity, then refills over time up to capacity', () => {
    const bucket = new TokenBucket({ capacity: 3, refillPerSecond: 2 }, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0)].every((r) => r.allowed)).toBe(true);
    expect(bucket.take(0)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(bucket.take(500)).toEqual({ allowed: true });
    expect(bucket.isFull(10_000)).toBe(true);
    // Long idle time does not store more than capacity.
    expect([bucket.take(10_000), bucket.take(10_000), bucket.take(10_000), bucket.take(10_000)].map((r) => r.allowed)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('never refills with a rate of zero', () => {
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 0 }, 0);
    expect(bucket.take(0).allowed).toBe(true);
    expect(bucket.take(1e9)).toEqual({ allowed: false, retryAfterMs: Number.POSITIVE_INFINITY });
  });

  it('ignores a clock that goes backwards', () => {
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1 }, 5_000);
    expect(bucket.take(5_000).allowed).toBe(true);
    expect(bucket.take(1_000).allowed).toBe(false);
  });
});
