/** Where a provider said how long to wait. */
export interface RetryAfterSource {
  /** Response headers: `retry-after-ms`, `retry-after` (seconds or an HTTP date). */
  headers?: Headers | undefined;
  /** An error message such as "Rate limit reached … Please try again in 11.05s." or "Try again in 35 seconds." */
  message?: string | undefined;
  /** For HTTP dates; default `Date.now()`. */
  now?: number;
}

/**
 * The longest wait `parseRetryAfter` returns, in ms: a week (ChatGPT's longest usage window).
 * A provider that asks for more (`retry-after: 99999999999999980000`) is taken to mean "a long
 * time", not a wait to print or to schedule.
 */
export const MAX_RETRY_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Milliseconds to wait before retrying, from headers first, then from the message text;
 * `undefined` when neither says. At most `MAX_RETRY_AFTER_MS`. A linear scan, no regex.
 *
 * @example parseRetryAfter({ message: 'Try again in 35 seconds.' }) // 35000
 */
export function parseRetryAfter(source: RetryAfterSource): number | undefined {
  const wait = uncappedRetryAfter(source);
  return wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS);
}

function uncappedRetryAfter(source: RetryAfterSource): number | undefined {
  const headers = source.headers;
  const ms = headers?.get('retry-after-ms');
  if (ms !== null && ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers?.get('retry-after');
  if (after !== null && after !== undefined && after.trim() !== '') {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - (source.now ?? Date.now()));
  }
  return source.message !== undefined ? retryDelayFromText(source.message) : undefined;
}

const MARKER = 'try again in ';

const UNITS: readonly (readonly [string, number])[] = [
  ['milliseconds', 1],
  ['millisecond', 1],
  ['ms', 1],
  ['seconds', 1000],
  ['second', 1000],
  ['secs', 1000],
  ['sec', 1000],
  ['s', 1000],
  ['minutes', 60_000],
  ['minute', 60_000],
  ['mins', 60_000],
  ['min', 60_000],
  ['m', 60_000],
  ['hours', 3_600_000],
  ['hour', 3_600_000],
  ['h', 3_600_000],
];

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/**
 * "…try again in 11.05s", "in 250ms", "Try again in 35 seconds.", "in 1m30s", "in 2 minutes"
 * → milliseconds. Only the text right after "try again in" is read.
 */
export function retryDelayFromText(message: string): number | undefined {
  const start = message.toLowerCase().indexOf(MARKER);
  if (start < 0) return undefined;
  const lower = message.toLowerCase();
  let index = start + MARKER.length;
  let total = 0;
  let parts = 0;
  for (;;) {
    const numberStart = index;
    if (index >= lower.length || !isDigit(lower.charCodeAt(index))) break;
    while (index < lower.length && (isDigit(lower.charCodeAt(index)) || lower.charCodeAt(index) === 46)) index++;
    if (index === numberStart) break;
    const value = Number(lower.slice(numberStart, index));
    if (!Number.isFinite(value)) return undefined;
    while (index < lower.length && lower.charCodeAt(index) === 32) index++;
    const unitStart = index;
    while (index < lower.length && isLetter(lower.charCodeAt(index))) index++;
    const unit = lower.slice(unitStart, index);
    const factor = UNITS.find(([name]) => name === unit)?.[1];
    if (factor === undefined) return parts > 0 ? total : undefined;
    total += value * factor;
    parts++;
    while (index < lower.length && lower.charCodeAt(index) === 32) index++;
  }
  return parts > 0 ? Math.round(total) : undefined;
}
