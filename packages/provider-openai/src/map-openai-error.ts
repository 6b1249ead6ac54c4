import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  ProviderServerError,
  ProviderUnavailableError,
  RateLimitError,
  StreamError,
  ToolwireError,
} from '@toolwire/core';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/** Where the failed call went, for messages that say what to check. */
export interface OpenAIErrorContext {
  baseURL: string;
  modelId: string;
  signal?: AbortSignal | undefined;
}

const PROVIDER = 'openai';

/** The error an aborted call rejects with: the signal's reason, or an `AbortError`. */
export function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted.', 'AbortError');
}

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

/** Milliseconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The fields of an SDK `APIError` the mapping reads. */
interface WireError {
  status: number | undefined;
  headers: Headers | undefined;
  error: unknown;
  code: unknown;
  message: string;
}

function bodyMessage(error: WireError): string {
  const body = error.error;
  if (typeof body === 'object' && body !== null) {
    const message = (body as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
  }
  return error.message;
}

/**
 * Maps an error reported inside a response (a Responses `response.failed` or `error`
 * event, which carry a code but no HTTP status) to core's classes.
 */
export function mapResponseErrorCode(options: { code?: string | null | undefined; message: string; cause?: unknown }): ProviderError {
  const code = options.code ?? undefined;
  const base = { provider: PROVIDER, message: options.message, ...(code !== undefined ? { code } : {}), cause: options.cause };
  if (code === 'rate_limit_exceeded') return new RateLimitError(base);
  if (isContextLengthMessage(options.message, code)) return new ContextLengthExceededError(base);
  if (code === 'server_error' || code === 'vector_store_timeout') return new ProviderServerError({ ...base, retryable: true });
  if (code !== undefined && code.startsWith('invalid')) return new InvalidRequestError(base);
  return new ProviderError(base);
}

/**
 * Maps whatever the `openai` SDK threw to core's errors, keeping the provider's message
 * and code: 401 → AuthenticationError, 403 → PermissionDeniedError, 404 →
 * ModelNotFoundError, 429 → RateLimitError (with `retryAfterMs`), context overflow →
 * ContextLengthExceededError, other 4xx → InvalidRequestError, 5xx → ProviderServerError,
 * unreachable → ProviderUnavailableError naming the base URL. An abort gives the signal's reason.
 */
export function mapOpenAIError(error: unknown, context: OpenAIErrorContext): Error {
  if (ToolwireError.isInstance(error)) return error;
  if (error instanceof APIUserAbortError || (context.signal?.aborted === true && !(error instanceof APIError && error.status !== undefined))) {
    return abortReason(context.signal);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderUnavailableError({
      provider: PROVIDER,
      baseURL: context.baseURL,
      message: `The request to ${context.baseURL} timed out. Raise timeoutMs, or check that the server is responsive.`,
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return new ProviderUnavailableError({
      provider: PROVIDER,
      baseURL: context.baseURL,
      message: `Could not reach ${context.baseURL}${cause}. Check that the server is running and that baseURL is right.`,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    const wire: WireError = {
      status: error.status as number | undefined,
      headers: error.headers as Headers | undefined,
      error: error.error as unknown,
      code: error.code,
      message: error.message,
    };
    const message = bodyMessage(wire);
    const code = typeof wire.code === 'string' ? wire.code : undefined;
    const status = wire.status;
    const base = { provider: PROVIDER, message, ...(status !== undefined ? { status } : {}), ...(code !== undefined ? { code } : {}), cause: error };
    if (status === undefined) return mapResponseErrorCode({ code, message, cause: error });
    if (status === 401) {
      return new AuthenticationError({ ...base, message: `${message} (check the API key: apiKey or OPENAI_API_KEY)` });
    }
    if (status === 403) return new PermissionDeniedError(base);
    if (status === 404) {
      return new ModelNotFoundError({
        ...base,
        modelId: context.modelId,
        message: `${message} (model "${context.modelId}" at ${context.baseURL}: check the model id with listModels() and the baseURL)`,
      });
    }
    if (status === 429) {
      const wait = retryAfterMs(wire.headers);
      return new RateLimitError({
        ...base,
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
        ...(code === 'insufficient_quota' ? { retryable: false } : {}),
      });
    }
    if (isContextLengthMessage(message, code)) return new ContextLengthExceededError(base);
    if (status >= 500) return new ProviderServerError({ ...base, retryable: true });
    if (status >= 400) return new InvalidRequestError(base);
    return new ProviderError(base);
  }
  if (error instanceof SyntaxError) {
    return new StreamError({ provider: PROVIDER, message: `The server sent a stream event that is not JSON (${error.message}).`, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError({ provider: PROVIDER, message: `The OpenAI request failed: ${message}`, cause: error });
}
