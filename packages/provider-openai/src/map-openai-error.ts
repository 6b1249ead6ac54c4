import { ProviderError, ProviderUnavailableError, StreamError, ToolwireError, UpstreamTimeoutError } from '@toolwire/core';
import { abortReason, mapProviderError, redactErrorSecrets } from '@toolwire/core/provider';
import type { ProviderErrorHints } from '@toolwire/core/provider';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/** Where the failed call went, for messages that say what to check. */
export interface OpenAIErrorContext {
  baseURL: string;
  modelId: string;
  signal?: AbortSignal | undefined;
  /** Credentials to redact from the error (a server may echo the key it was sent). */
  secrets?: readonly string[];
}

const PROVIDER = 'openai';

export { abortReason };

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

/** `text` without the periods it ends with, for a message that goes on after it. */
function withoutFinalPeriods(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2e) end--;
  return text.slice(0, end);
}

/** Advice added to each error class. */
const HINTS: ProviderErrorHints = {
  authentication: 'check the API key: apiKey or OPENAI_API_KEY',
  quota: "the account's billing quota is used up: add credits or raise the limit at platform.openai.com/settings/organization/billing; retrying will not help",
};

/**
 * Maps an error reported inside a response (a Responses `response.failed` or `error`
 * event, which carry a code but no HTTP status) to core's classes.
 */
export function mapResponseErrorCode(options: { code?: string | null | undefined; message: string; cause?: unknown }): ProviderError {
  const code = options.code ?? undefined;
  return mapProviderError({ provider: PROVIDER, message: options.message, code, hints: HINTS, cause: options.cause });
}

/**
 * Maps whatever the `openai` SDK threw to core's errors, keeping the provider's message
 * and code: 401 → AuthenticationError, 403 → PermissionDeniedError, 404 →
 * ModelNotFoundError, 429 → RateLimitError (with `retryAfterMs`), context overflow →
 * ContextLengthExceededError, other 4xx → InvalidRequestError, 5xx → ProviderServerError,
 * unreachable → ProviderUnavailableError naming the base URL, an upstream that answered nothing
 * within the fetch's idle timeout → its `UpstreamTimeoutError`. An abort gives the signal's reason.
 * The `secrets` of the context are redacted from the error and its causes.
 */
export function mapOpenAIError(error: unknown, context: OpenAIErrorContext): Error {
  const mapped = mapError(error, context);
  // The caller's own abort reason goes back to them as it is.
  if (context.signal?.aborted === true && mapped === context.signal.reason) return mapped;
  return redactErrorSecrets(mapped, context.secrets ?? []);
}

function mapError(error: unknown, context: OpenAIErrorContext): Error {
  if (ToolwireError.isInstance(error)) return error;
  if (error instanceof APIUserAbortError || (context.signal?.aborted === true && !(error instanceof APIError && error.status !== undefined))) {
    return abortReason(context.signal);
  }
  // The fetch's idle timeout, wrapped by the SDK when it had no retries left (as a timeout, for
  // the error's name): the server was reached and answered nothing.
  if (error instanceof APIConnectionError && UpstreamTimeoutError.isInstance(error.cause)) return error.cause;
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderUnavailableError({
      provider: PROVIDER,
      baseURL: context.baseURL,
      message: `The request to ${context.baseURL} timed out. Raise timeoutMs, or check that the server is responsive.`,
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${withoutFinalPeriods(error.cause.message)}` : '';
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
    if (status === undefined) return mapResponseErrorCode({ code, message, cause: error });
    return mapProviderError({
      provider: PROVIDER,
      status,
      message,
      code,
      headers: wire.headers,
      modelId: context.modelId,
      cause: error,
      hints: { ...HINTS, notFound: `model "${context.modelId}" at ${context.baseURL}: check the model id with listModels() and the baseURL` },
    });
  }
  if (error instanceof SyntaxError) {
    return new StreamError({ provider: PROVIDER, message: `The server sent a response or stream event that is not valid JSON (${error.message}).`, cause: error });
  }
  if (isConnectionLost(error)) {
    return new ProviderUnavailableError({
      provider: PROVIDER,
      baseURL: context.baseURL,
      message: `The connection to ${context.baseURL} was lost while the answer was read, so there is no answer. Retry the request; if it keeps happening, check the server (it may have crashed) or a proxy in between.`,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError({ provider: PROVIDER, message: `The OpenAI request failed: ${message}`, cause: error });
}

// A socket that broke after the headers (reset, closed early): Node's `aborted` error while
// the body was read, which the SDK passes on unwrapped for a non-streamed answer.
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && LOST_CODES.has(code)) || error.message === 'aborted' || error.message === 'terminated';
}
