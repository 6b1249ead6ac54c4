import { createSecretRedactor } from '@toolwire/core/provider';

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

/** `logger` with the credentials taken out of every string it is given. */
function redactingLogger(logger: OpenAISdkLogger, secrets: () => readonly string[]): OpenAISdkLogger {
  const clean = (values: readonly unknown[]): unknown[] => {
    const redact = createSecretRedactor(secrets());
    return values.map((value) => (typeof value === 'string' ? redact(value) : value));
  };
  return {
    error: (...args: [string, ...unknown[]]) => logger.error(...(clean(args) as [string, ...unknown[]])),
    warn: (...args: [string, ...unknown[]]) => logger.warn(...(clean(args) as [string, ...unknown[]])),
    info: (...args: [string, ...unknown[]]) => logger.info(...(clean(args) as [string, ...unknown[]])),
    debug: (...args: [string, ...unknown[]]) => logger.debug(...(clean(args) as [string, ...unknown[]])),
  };
}
