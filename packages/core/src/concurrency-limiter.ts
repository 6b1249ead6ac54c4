/**
 * A counting semaphore: at most `max` holders at once, the rest wait in order.
 * A waiter whose signal aborts leaves the queue and rejects with the signal's reason.
 */
export class ConcurrencyLimiter {
  readonly max: number;
  #active = 0;
  readonly #waiters: { grant: () => void }[] = [];

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`maxConcurrency must be a whole number >= 1, got ${String(max)}.`);
    }
    this.max = max;
  }

  /** How many holders run now. */
  get active(): number {
    return this.#active;
  }

  /** How many callers wait for a slot. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Waits for a slot; resolves with the function that gives it back (call it exactly once). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.#active < this.max) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#active++;
          resolve(this.#releaser());
        },
      };
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      this.#waiters.shift()?.grant();
    };
  }
}
