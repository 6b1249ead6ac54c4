/** A counting semaphore: at most `limit` holders at once, waiters served in order. */
export interface Semaphore {
  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
}

/** Creates a semaphore with `limit` slots. */
export function createSemaphore(limit: number): Semaphore {
  let active = 0;
  const waiters: { grant: () => void }[] = [];
  const release = (): void => {
    const next = waiters.shift();
    if (next) next.grant();
    else active--;
  };
  const releaser = (): (() => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return waiters.length;
    },
    acquire(signal) {
      if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
      if (active < limit) {
        active++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser());
          },
        };
        const onAbort = (): void => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(signal?.reason as Error);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
  };
}
