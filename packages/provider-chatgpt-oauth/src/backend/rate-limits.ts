import { isRecord } from '../auth/jwt.ts';

/** One usage window (the 5-hour or the weekly one). */
export interface RateLimitWindow {
  usedPercent?: number;
  /** 300 = the 5-hour window, 10080 = weekly. */
  windowMinutes?: number;
  /** Epoch seconds when the window resets. */
  resetsAt?: number;
  resetAfterSeconds?: number;
}

/**
 * The plan's usage as the backend reports it (the `x-codex-*` headers of every response
 * and the `codex.rate_limits` stream event), exposed as `providerMetadata.chatgpt.rateLimits`.
 */
export interface ChatGPTRateLimits {
  primary?: RateLimitWindow;
  secondary?: RateLimitWindow;
  primaryOverSecondaryLimitPercent?: number;
  credits?: { hasCredits?: boolean; unlimited?: boolean; balance?: string };
  planType?: string;
  activeLimit?: string;
  promoMessage?: string;
  /** Extra limit families (`x-<family>-primary-*` headers, `x-codex-<name>-primary-*` too), keyed by family. */
  limits?: Record<string, { limitName?: string; primary?: RateLimitWindow; secondary?: RateLimitWindow }>;
}

/** Reads the `x-codex-*` usage headers (and other `x-<family>-primary-*` families); `undefined` when there are none. */
export function parseRateLimitHeaders(headers: Headers): ChatGPTRateLimits | undefined {
  const result: ChatGPTRateLimits = {};
  const primary = readWindow(headers, 'x-codex-primary');
  const secondary = readWindow(headers, 'x-codex-secondary');
  if (primary) result.primary = primary;
  if (secondary) result.secondary = secondary;
  const over = numberOf(headers.get('x-codex-primary-over-secondary-limit-percent'));
  if (over !== undefined) result.primaryOverSecondaryLimitPercent = over;
  const credits: NonNullable<ChatGPTRateLimits['credits']> = {};
  const hasCredits = booleanOf(headers.get('x-codex-credits-has-credits'));
  const unlimited = booleanOf(headers.get('x-codex-credits-unlimited'));
  const balance = headers.get('x-codex-credits-balance');
  if (hasCredits !== undefined) credits.hasCredits = hasCredits;
  if (unlimited !== undefined) credits.unlimited = unlimited;
  if (balance !== null && balance !== '') credits.balance = balance;
  if (Object.keys(credits).length > 0) result.credits = credits;
  setString(result, 'planType', headers.get('x-codex-plan-type'));
  setString(result, 'activeLimit', headers.get('x-codex-active-limit'));
  setString(result, 'promoMessage', headers.get('x-codex-promo-message'));

  const suffix = '-primary-used-percent';
  for (const [name] of headers) {
    if (!name.startsWith('x-') || !name.endsWith(suffix)) continue;
    const family = name.slice(2, name.length - suffix.length);
    // `x-codex-primary-*` is the main family above; `x-codex-<other>-primary-*` families are
    // further limits (Codex reads every `x-<id>-primary-used-percent`, openai/codex,
    // codex-rs/codex-api/src/rate_limits.rs) and are kept like any other.
    if (family === '' || family === 'codex') continue;
    const entry: NonNullable<ChatGPTRateLimits['limits']>[string] = {};
    const familyPrimary = readWindow(headers, `x-${family}-primary`);
    const familySecondary = readWindow(headers, `x-${family}-secondary`);
    const limitName = headers.get(`x-${family}-limit-name`);
    if (familyPrimary) entry.primary = familyPrimary;
    if (familySecondary) entry.secondary = familySecondary;
    if (limitName !== null && limitName !== '') entry.limitName = limitName;
    result.limits = { ...result.limits, [family]: entry };
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/** Reads a `codex.rate_limits` stream event into the same shape. */
export function parseRateLimitEvent(event: Record<string, unknown>): ChatGPTRateLimits {
  const result: ChatGPTRateLimits = {};
  const limits = isRecord(event.rate_limits) ? event.rate_limits : event;
  const primary = isRecord(limits.primary) ? eventWindow(limits.primary) : undefined;
  const secondary = isRecord(limits.secondary) ? eventWindow(limits.secondary) : undefined;
  if (primary) result.primary = primary;
  if (secondary) result.secondary = secondary;
  if (isRecord(event.credits)) {
    const credits: NonNullable<ChatGPTRateLimits['credits']> = {};
    if (typeof event.credits.has_credits === 'boolean') credits.hasCredits = event.credits.has_credits;
    if (typeof event.credits.unlimited === 'boolean') credits.unlimited = event.credits.unlimited;
    if (typeof event.credits.balance === 'string' || typeof event.credits.balance === 'number') credits.balance = String(event.credits.balance);
    result.credits = credits;
  }
  if (typeof event.plan_type === 'string') result.planType = event.plan_type;
  return result;
}

/** The newer snapshot's fields over the older one's. */
export function mergeRateLimits(older: ChatGPTRateLimits | undefined, newer: ChatGPTRateLimits | undefined): ChatGPTRateLimits | undefined {
  if (older === undefined) return newer;
  if (newer === undefined) return older;
  return { ...older, ...newer };
}

function readWindow(headers: Headers, prefix: string): RateLimitWindow | undefined {
  const window: RateLimitWindow = {};
  const usedPercent = numberOf(headers.get(`${prefix}-used-percent`));
  const windowMinutes = numberOf(headers.get(`${prefix}-window-minutes`));
  const resetsAt = numberOf(headers.get(`${prefix}-reset-at`));
  const resetAfterSeconds = numberOf(headers.get(`${prefix}-reset-after-seconds`));
  if (usedPercent !== undefined) window.usedPercent = usedPercent;
  if (windowMinutes !== undefined) window.windowMinutes = windowMinutes;
  if (resetsAt !== undefined) window.resetsAt = resetsAt;
  if (resetAfterSeconds !== undefined) window.resetAfterSeconds = resetAfterSeconds;
  return Object.keys(window).length > 0 ? window : undefined;
}

function eventWindow(raw: Record<string, unknown>): RateLimitWindow {
  const window: RateLimitWindow = {};
  if (typeof raw.used_percent === 'number') window.usedPercent = raw.used_percent;
  if (typeof raw.window_minutes === 'number') window.windowMinutes = raw.window_minutes;
  const resetsAt = raw.reset_at ?? raw.resets_at;
  if (typeof resetsAt === 'number') window.resetsAt = resetsAt;
  const after = raw.reset_after_seconds ?? raw.resets_in_seconds;
  if (typeof after === 'number') window.resetAfterSeconds = after;
  return window;
}

function numberOf(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

function booleanOf(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  const lower = value.trim().toLowerCase();
  return lower === 'true' || lower === '1' ? true : lower === 'false' || lower === '0' ? false : undefined;
}

function setString(target: ChatGPTRateLimits, key: 'planType' | 'activeLimit' | 'promoMessage', value: string | null): void {
  if (value !== null && value !== '') target[key] = value;
}
