import {
  AuthExpiredError,
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  InvalidToolDefinitionError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  ProviderToolMismatchError,
  ProviderUnavailableError,
  RateLimitError,
  UnsupportedFeatureError,
  UpstreamMessageTooLargeError,
  AnswerTooLargeError,
  UpstreamTimeoutError,
} from '@toolwire/core';
import { ReplayMismatchError } from '@toolwire/core/testing';
import { NotSignedInError } from '@toolwire/provider-chatgpt-oauth';
import { boundErrorText } from './bound-error-text.ts';
import { GatewayError } from './gateway-error.ts';

/** The longest `Retry-After` the gateway sends, in seconds (a week). */
const MAX_RETRY_AFTER_SECONDS = 7 * 24 * 60 * 60;

/**
 * Any error from a provider, the tool loop or the gateway → the `GatewayError` the client
 * sees. Client mistakes stay 4xx (SDKs retry 5xx); upstream credential problems are the
 * operator's, so they become a non-retryable 502 rather than a 401 the client cannot fix.
 * Unexpected errors become a 500 without internal details.
 */
export function toGatewayError(error: unknown): GatewayError {
  // Before anything reads the message: the envelope below, and the log line that follows it.
  boundErrorText(error);
  if (GatewayError.isInstance(error)) return error;
  if (InvalidRequestError.isInstance(error) || ContextLengthExceededError.isInstance(error)) {
    const code = ContextLengthExceededError.isInstance(error) ? 'context_length_exceeded' : ((error as InvalidRequestError).code ?? null);
    return new GatewayError({ status: 400, type: 'invalid_request_error', message: error.message, code, cause: error });
  }
  if (ModelNotFoundError.isInstance(error)) {
    return new GatewayError({ status: 404, type: 'not_found_error', message: error.message, param: 'model', code: 'model_not_found', cause: error });
  }
  if (RateLimitError.isInstance(error)) {
    // An upstream's absurd wait (`retry-after: 99999999999999999999`) is passed on as at most a week (ChatGPT's longest usage window).
    const seconds = error.retryAfterMs === undefined || !(error.retryAfterMs >= 0) ? undefined : Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
    const options = { status: 429, type: 'rate_limit_error', message: `The upstream provider is rate limiting: ${error.message}`, code: error.code ?? 'rate_limit_exceeded', retryable: error.retryable, cause: error } as const;
    return new GatewayError(seconds === undefined ? options : { ...options, retryAfterSeconds: seconds });
  }
  if (AuthExpiredError.isInstance(error) || NotSignedInError.isInstance(error)) {
    // A sign-in (not a key) that ran out: the provider's message says how to sign in again and holds no token.
    return new GatewayError({
      status: 502,
      type: 'upstream_error',
      message: `The ${error.provider} provider needs a new sign-in on the gateway: ${error.message}`,
      code: 'upstream_sign_in_required',
      retryable: false,
      cause: error,
    });
  }
  if (AuthenticationError.isInstance(error) || PermissionDeniedError.isInstance(error)) {
    return new GatewayError({
      status: 502,
      type: 'upstream_error',
      message: `The ${error.provider} provider rejected the gateway's credentials. The gateway operator must fix its configuration.`,
      code: 'upstream_authentication_failed',
      retryable: false,
      cause: error,
    });
  }
  if (UnsupportedFeatureError.isInstance(error) || ProviderToolMismatchError.isInstance(error) || InvalidToolDefinitionError.isInstance(error)) {
    return new GatewayError({ status: 400, type: 'invalid_request_error', message: error.message, code: 'unsupported_value', cause: error });
  }
  if (ReplayMismatchError.isInstance(error)) {
    // A replayed conversation that left its transcript: the client's request, not the server, differs.
    return new GatewayError({ status: 400, type: 'invalid_request_error', message: error.message, code: 'replay_mismatch', retryable: false, cause: error });
  }
  if (UpstreamTimeoutError.isInstance(error)) {
    // Reached, but silent: not "cannot be reached". The providers have not sent it again.
    const message =
      error.phase === 'headers'
        ? `The upstream answered nothing within ${error.timeoutMs} ms (limits.upstreamIdleTimeoutMs); the gateway stopped the request and did not retry it. Check that the upstream server is responsive, or raise the limit for models that think long before their first byte.`
        : `The upstream sent nothing more for ${error.timeoutMs} ms (limits.upstreamIdleTimeoutMs); the gateway stopped the request.`;
    return new GatewayError({ status: 503, type: 'upstream_error', message, code: 'upstream_timeout', retryable: true, cause: error });
  }
  if (AnswerTooLargeError.isInstance(error)) {
    // Named by the gateway's settings, whichever layer (provider or loop) counted it.
    const message =
      error.limit === 'chars'
        ? `The model wrote more than ${error.max} characters in one answer (text, reasoning and tool-call arguments together); the gateway stopped the request so that a model that loops cannot exhaust its memory. Ask for a shorter answer; if real answers are this long, the operator can raise limits.upstreamAnswerLimitChars.`
        : `The model made more than ${error.max} tool calls in one answer; the gateway stopped the request. Ask for fewer calls per turn; if real answers make this many, the operator can raise limits.upstreamAnswerToolCallLimit.`;
    return new GatewayError({ status: 502, type: 'upstream_error', message, code: 'upstream_answer_too_large', retryable: false, cause: error });
  }
  if (UpstreamMessageTooLargeError.isInstance(error)) {
    // The upstream was reached and answered, past what the gateway holds: the same request would meet the same message.
    return new GatewayError({ status: 502, type: 'upstream_error', message: error.message, code: 'upstream_message_too_large', retryable: false, cause: error });
  }
  if (ProviderUnavailableError.isInstance(error)) {
    // Unreachable, or reached and then lost mid-answer (a reset): the provider's message says which.
    return new GatewayError({ status: 503, type: 'upstream_error', message: `The ${error.provider} provider is unavailable: ${error.message}`, code: 'upstream_unavailable', retryable: true, cause: error });
  }
  if (ProviderError.isInstance(error)) {
    const status = error.status !== undefined && error.status >= 400 && error.status < 500 ? 400 : 502;
    return new GatewayError({
      status,
      type: status === 400 ? 'invalid_request_error' : 'upstream_error',
      message: `The ${error.provider} provider failed: ${error.message}`,
      code: error.code ?? null,
      retryable: error.retryable,
      cause: error,
    });
  }
  return new GatewayError({
    status: 500,
    type: 'server_error',
    message: 'The gateway hit an internal error; the server log has the details under this request id.',
    cause: error,
  });
}
