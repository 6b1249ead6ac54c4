import { AsyncLocalStorage } from 'node:async_hooks';
import { createSecretRedactor, redactErrorSecrets } from '@toolwire/core/provider';
import type { SecretRedactor } from '@toolwire/core/provider';

/** Where the `openai` SDK's own messages go (the SDK's `logger` client option): `console` has this shape. */
export interface OpenAISdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/** The SDK's log levels, quietest first. */
export type OpenAISdkLogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

const LEVELS: readonly OpenAISdkLogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/** What `createOpenAI` hands the SDK client for its own logging. */
export interface SdkLogOptions {
  logger: OpenAISdkLogger;
  logLevel: OpenAISdkLogLevel;
}

/**
 * The SDK's logging, resolved in one place. The SDK reports things the provider turns into
 * typed errors anyway (a garbled stream event: "Could not parse message into JSON"), and by
 * default writes them to the console, where a library's user cannot turn them off and a
 * server's log format and redaction are bypassed. So: a `logger` given is used (at
 * `logLevel`, else `OPENAI_LOG`, else `warn`); without one the SDK is silent unless
 * `OPENAI_LOG` asks for its messages (then `console` at that level, the SDK's own
 * behaviour). Either way the provider's credentials are redacted from every string first.
 */
export function resolveSdkLogging(
  options: { logger?: OpenAISdkLogger | undefined; logLevel?: OpenAISdkLogLevel | undefined },
  secrets: () => readonly string[],
): SdkLogOptions {
  const env = process.env['OPENAI_LOG'];
  const fromEnv = LEVELS.find((level) => level === env?.trim().toLowerCase());
  if (options.logLevel !== undefined && !LEVELS.includes(options.logLevel)) {
    throw new TypeError(`createOpenAI: logLevel must be one of ${LEVELS.join(', ')}; got ${JSON.stringify(options.logLevel)}.`);
  }
  const logLevel = options.logLevel ?? fromEnv ?? (options.logger === undefined ? 'off' : 'warn');
  return { logger: redactingLogger(options.logger ?? console, secrets), logLevel };
}

/** The credentials of the request an SDK call is for (its own headers), for the lines it logs. */
const requestSecrets = new AsyncLocalStorage<readonly string[]>();

/**
 * Runs `call`, an SDK call, with `secrets` (the credentials among its request's own headers)
 * redacted from the SDK's log lines it causes, as the provider's own are from every line.
 */
export function withRequestSecrets<T>(secrets: readonly string[], call: () => T): T {
  return secrets.length === 0 ? call() : requestSecrets.run(secrets, call);
}

/** The most of one string a log line keeps (an upstream's error page may be megabytes). */
const MAX_LOG_TEXT_CHARS = 64 * 1024;
/** How deep into the details of a line, and how many values, redaction goes. */
const MAX_LOG_DEPTH = 8;
const MAX_LOG_VALUES = 1000;

/**
 * `logger` with the credentials taken out of everything it is given: the strings, and the
 * details the SDK adds to a line at `debug` (request and response headers, an error body
 * that is not JSON), which a structured logger prints whole. The details are copied, never
 * changed, except an `Error`, which is redacted in place.
 */
function redactingLogger(logger: OpenAISdkLogger, secrets: () => readonly string[]): OpenAISdkLogger {
  let built: { key: string; redact: SecretRedactor } | undefined;
  const redactorFor = (all: readonly string[]): SecretRedactor => {
    const key = all.join('\0');
    if (built?.key !== key) built = { key, redact: createSecretRedactor(all) };
    return built.redact;
  };
  const clean = (values: readonly unknown[]): unknown[] => {
    const redact = redactorFor([...secrets(), ...(requestSecrets.getStore() ?? [])]);
    const budget = { values: MAX_LOG_VALUES };
    return values.map((value) => cleanValue(value, redact, 0, budget));
  };
  return {
    error: (...args: [string, ...unknown[]]) => logger.error(...(clean(args) as [string, ...unknown[]])),
    warn: (...args: [string, ...unknown[]]) => logger.warn(...(clean(args) as [string, ...unknown[]])),
    info: (...args: [string, ...unknown[]]) => logger.info(...(clean(args) as [string, ...unknown[]])),
    debug: (...args: [string, ...unknown[]]) => logger.debug(...(clean(args) as [string, ...unknown[]])),
  };
}

/** A copy of `value` with the secrets redacted from its strings (headers as a plain object). */
function cleanValue(value: unknown, redact: SecretRedactor, depth: number, budget: { values: number }): unknown {
  if (typeof value === 'string') return redact(value, MAX_LOG_TEXT_CHARS);
  if (typeof value !== 'object' || value === null) return value;
  if (--budget.values < 0 || depth >= MAX_LOG_DEPTH) return '[not shown]';
  if (value instanceof Error) return redactErrorSecrets(value, redact);
  if (value instanceof Headers) return Object.fromEntries([...value].map(([name, text]) => [name, redact(text, MAX_LOG_TEXT_CHARS)]));
  if (Array.isArray(value)) return value.map((item: unknown) => cleanValue(item, redact, depth + 1, budget));
  const prototype: unknown = Object.getPrototypeOf(value);
  // A URL as its text; any other object (a buffer, a stream) by its kind only.
  if (value instanceof URL) return redact(value.href, MAX_LOG_TEXT_CHARS);
  if (prototype !== Object.prototype && prototype !== null) return Object.prototype.toString.call(value);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = cleanValue(item, redact, depth + 1, budget);
  return copy;
}
