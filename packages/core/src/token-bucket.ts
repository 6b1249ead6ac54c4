/** A token bucket: `capacity` calls at once, refilled at `refillPerSecond`. */
export interface RateLimit {
  /** The most calls allowed in a burst. */
  capacity: number;
  /** Tokens added back per second (e.g. `1 / 60` for one call a minute). */
  refillPerSecond: number;
}

/** The outcome of taking a token. */
export type TakeResult = { allowed: true } | { allowed: false; retryAfterMs: number };

/** One bucket's state; `take` refills by elapsed time, then spends one token if it can. */
export class TokenBucket {
  readonly #limit: RateLimit;
  #tokens: number;
  #updatedAt: number;

  constructor(limit: RateLimit, now: number) {
    this.#limit = limit;
    this.#tokens = limit.capacity;
    this.#updatedAt = now;
  }

  /** Spends one token at time `now` (ms), or says how long until one is available. */
  take(now: number): TakeResult {
    this.#refill(now);
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { allowed: true };
    }
    const rate = this.#limit.refillPerSecond;
    const retryAfterMs = rate > 0 ? Math.ceil(((1 - this.#tokens) / rate) * 1000) : Number.POSITIVE_INFINITY;
    return { allowed: false, retryAfterMs };
  }

  /** Whether the bucket is back to full capacity at `now` (so it can be forgotten). */
  isFull(now: number): boolean {
    this.#refill(now);
    return this.#tokens >= this.#limit.capacity;
  }

  #refill(now: number): void {
    const elapsedMs = Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.#limit.capacity, this.#tokens + (elapsedMs / 1000) * this.#limit.refillPerSecond);
    this.#updatedAt = now;
  }
}
