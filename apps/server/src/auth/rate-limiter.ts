import { TokenBucket } from '@toolwire/core';

/** The outcome of taking one request from a key's allowance. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A token bucket per key (core's `TokenBucket`): `requestsPerMinute` requests, refilled
 * continuously, bursts up to the same number.
 */
export interface RateLimiter {
  take(keyId: string, requestsPerMinute: number): RateDecision;
}

/** Creates an in-memory limiter; `now` (ms) is injectable for tests. */
export function createRateLimiter(now: () => number = () => performance.now()): RateLimiter {
  // Keys come from the configuration, so the map is bounded by it.
  const buckets = new Map<string, TokenBucket>();
  return {
    take(keyId, requestsPerMinute) {
      const at = now();
      let bucket = buckets.get(keyId);
      if (bucket === undefined) {
        bucket = new TokenBucket({ capacity: requestsPerMinute, refillPerSecond: requestsPerMinute / 60 }, at);
        buckets.set(keyId, bucket);
      }
      const taken = bucket.take(at);
      if (taken.allowed) return taken;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(taken.retryAfterMs / 1000)) };
    },
  };
}
