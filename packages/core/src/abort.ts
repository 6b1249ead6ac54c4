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
    // Plain reactions rather than a `finally` chain: this sits on every model call.
    const stopListening = (): void => signal.removeEventListener('abort', onAbort);
    promise.then(stopListening, stopListening);
    promise.then(resolve, reject);
  });
}

function noop(): void {
  // The losing side of a race may still settle; its outcome no longer matters.
}
