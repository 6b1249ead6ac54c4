/** The longest duration an option takes: a day (Node turns a delay past ~24.8 days, or NaN, into 1 ms). */
const MAX_DURATION_MS = 24 * 60 * 60 * 1000;
/** The largest message a stdio server may send: past V8's string length (about 512 MiB) it could not be read. */
export const MAX_MESSAGE_BYTES_LIMIT = 256 * 1024 * 1024;

/** Throws a TypeError naming `option` unless `value` is a duration from 1 ms to a day. */
export function checkDuration(option: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > MAX_DURATION_MS) {
    throw new TypeError(`mcpTools: \`${option}\` must be a number of milliseconds from 1 to ${MAX_DURATION_MS} (a day), got ${String(value)}.`);
  }
}

/** Throws a TypeError naming `option` unless `value` is a whole number from `min` to `max`. */
export function checkCount(option: string, value: number, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`mcpTools: \`${option}\` must be a whole number from ${min} to ${max}, got ${String(value)}.`);
  }
}
