/** The outcome of taking one request from a key's allowance. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A token bucket per key: `requestsPerMinute` requests, refilled continuously, bursts up
 * to the same number.
 */
export interface RateLimiter {
  take(keyId: string, requestsPerMinute: number): RateDecision;
}

/** Creates an in-memory limiter; `now` is injectable for tests. */
export function createRateLimiter(now: () => number = () => performance.now()): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(keyId, requestsPerMinute) {
      const t = now();
      const perMs = requestsPerMinute / 60_000;
      const bucket = buckets.get(keyId) ?? { tokens: requestsPerMinute, at: t };
      bucket.tokens = Math.min(requestsPerMinute, bucket.tokens + (t - bucket.at) * perMs);
      bucket.at = t;
      buckets.set(keyId, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    },
  };
}
