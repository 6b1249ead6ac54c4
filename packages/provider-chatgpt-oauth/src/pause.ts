import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits `ms`. An abort of `signal` ends the wait with the signal's reason, what the caller
 * aborted with (as everywhere else a request is aborted), not the timer's own `AbortError`.
 */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    throw error;
  }
}
