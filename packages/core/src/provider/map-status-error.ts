import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  ProviderServerError,
  RateLimitError,
} from '../errors.ts';
import { parseRetryAfter } from './retry-after.ts';

/** Advice a provider adds to each error class, e.g. `{ authentication: 'check OPENAI_API_KEY' }`. */
export interface ProviderErrorHints {
  /** 401. */
  authentication?: string;
  /** 403. */
  permission?: string;
  /** 404: the model or endpoint does not exist. */
  notFound?: string;
  /** 429 and `rate_limit_exceeded`. */
  rateLimit?: string;
  /** `insufficient_quota`: the account's billing quota is used up. */
  quota?: string;
  /** The conversation does not fit the model's context window. */
  contextLength?: string;
  /** Other 4xx. */
  invalidRequest?: string;
  /** 5xx and overload codes. */
  server?: string;
}

/** A failed call as a provider saw it. */
export interface ProviderFailure {
  provider: string;
  /** The HTTP status; `undefined` for an error reported inside a stream (use `code`). */
  status?: number | undefined;
  /** The provider's own message, quoted in the error. */
  message: string;
  /** The provider's error code (`insufficient_quota`, `context_length_exceeded`, …). */
  code?: string | undefined;
  /** For `retry-after` / `retry-after-ms`. */
  headers?: Headers | undefined;
  /** Named by `ModelNotFoundError`. */
  modelId?: string | undefined;
  hints?: ProviderErrorHints;
  cause?: unknown;
}

const DEFAULT_QUOTA_HINT =
  "the account's billing quota is used up: add credits or raise the spending limit in the provider's billing settings; retrying will not help";

/** Whether a provider message says the conversation is longer than the model's context window. */
export function isContextLengthMessage(message: string, code: string | undefined): boolean {
  if (code === 'context_length_exceeded') return true;
  const lower = message.toLowerCase();
  return (
    lower.includes('context_length_exceeded') ||
    lower.includes('maximum context length') ||
    lower.includes('context length') ||
    lower.includes('context window') ||
    lower.includes('context size')
  );
}

function withHint(message: string, hint: string | undefined): string {
  return hint === undefined || hint === '' ? message : `${message} (${hint})`;
}

/**
 * The one status → error-class mapping every provider uses: 401 → `AuthenticationError`,
 * 403 → `PermissionDeniedError`, 404 → `ModelNotFoundError`, 429 → `RateLimitError` (with
 * `retryAfterMs` from headers or "try again in …" text; `insufficient_quota` is a billing
 * quota, not retryable), context overflow → `ContextLengthExceededError`, other 4xx →
 * `InvalidRequestError`, 5xx → retryable `ProviderServerError`. Without a status the
 * provider's `code` decides (errors reported inside a stream). The provider's message is
 * kept, with the provider's hint for that class after it.
 *
 * @example mapProviderError({ provider: 'acme', status: 401, message: 'bad key', hints: { authentication: 'check ACME_API_KEY' } })
 */
export function mapProviderError(given: ProviderFailure): ProviderError {
  // A blank message (`"message": " "`) would make an error that says nothing at all.
  const failure = given.message.trim() === '' ? { ...given, message: blankMessage(given) } : given;
  const { status, message, code, hints = {} } = failure;
  const base = {
    provider: failure.provider,
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(failure.cause !== undefined ? { cause: failure.cause } : {}),
  };
  if (code === 'insufficient_quota') {
    return new RateLimitError({ ...base, retryable: false, message: withHint(message, hints.quota ?? DEFAULT_QUOTA_HINT) });
  }
  if (status === undefined) return mapCode(failure, base);
  if (status === 401) return new AuthenticationError({ ...base, message: withHint(message, hints.authentication) });
  if (status === 403) return new PermissionDeniedError({ ...base, message: withHint(message, hints.permission) });
  if (status === 404) {
    return new ModelNotFoundError({
      ...base,
      ...(failure.modelId !== undefined ? { modelId: failure.modelId } : {}),
      message: withHint(message, hints.notFound),
    });
  }
  if (status === 429) return rateLimit(failure, base);
  if (isContextLengthMessage(message, code) || status === 413) {
    return new ContextLengthExceededError({ ...base, message: withHint(message, hints.contextLength) });
  }
  if (status >= 500) return new ProviderServerError({ ...base, retryable: true, message: withHint(message, hints.server) });
  if (status >= 400) return new InvalidRequestError({ ...base, message: withHint(message, hints.invalidRequest) });
  return new ProviderError({ ...base, message });
}

function blankMessage(failure: ProviderFailure): string {
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  const code = failure.code === undefined ? '' : ` with the code ${JSON.stringify(failure.code)}`;
  return `The ${failure.provider} API reported an error${status}${code} but gave no message.`;
}

type Base = { provider: string; status?: number; code?: string; cause?: unknown };

function rateLimit(failure: ProviderFailure, base: Base): RateLimitError {
  const wait = parseRetryAfter({ headers: failure.headers, message: failure.message });
  return new RateLimitError({ ...base, ...(wait !== undefined ? { retryAfterMs: wait } : {}), message: withHint(failure.message, failure.hints?.rateLimit) });
}

function mapCode(failure: ProviderFailure, base: Base): ProviderError {
  const { code, message, hints = {} } = failure;
  switch (code) {
    case 'rate_limit_exceeded':
    case 'rate_limit_error':
      return rateLimit(failure, base);
    case 'server_error':
    case 'server_is_overloaded':
    case 'slow_down':
    case 'vector_store_timeout':
      return new ProviderServerError({ ...base, retryable: true, message: withHint(message, hints.server) });
    default:
      break;
  }
  if (isContextLengthMessage(message, code)) return new ContextLengthExceededError({ ...base, message: withHint(message, hints.contextLength) });
  if (code !== undefined && code.startsWith('invalid')) return new InvalidRequestError({ ...base, message: withHint(message, hints.invalidRequest) });
  return new ProviderError({ ...base, message });
}
