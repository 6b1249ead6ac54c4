/**
 * The longest limit in ms the sandbox takes: a day. Node timers hold at most about 24.8 days
 * and turn a longer, negative or NaN delay into 1 ms, which would kill every run at once; a
 * day leaves room for the grace periods added on top.
 */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000;

/** Whether `value` is a usable limit in ms (1 ms to a day). */
export function isValidDurationMs(value: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 && value <= MAX_DURATION_MS;
}

/** The message for an unusable limit, naming the option. */
export function durationProblem(option: string, value: number): string {
  return `${option} must be a number of milliseconds from 1 to ${MAX_DURATION_MS} (a day), got ${String(value)}.`;
}

/** Throws a TypeError naming the option when `value` is not a usable limit in ms. */
export function checkDurationMs(value: number, option: string): void {
  if (!isValidDurationMs(value)) throw new TypeError(durationProblem(option, value));
}
