/** Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(noop);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(noop);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // One reaction for both outcomes (no `finally` chain): this sits on every model call.
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

function noop(): void {
  // The losing side of a race may still settle; its outcome no longer matters.
}
