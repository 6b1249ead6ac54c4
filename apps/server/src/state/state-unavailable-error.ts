import { GatewayError } from '../wire/gateway-error.ts';

/**
 * The shared state (Redis) cannot be reached or does not answer: an OpenAI-style 503 the client may retry.
 * Limits fail closed: a request that needs a rate limit, a concurrency slot or a stored
 * turn is refused rather than let through unchecked.
 */
export function stateUnavailable(backend: string): GatewayError {
  return new GatewayError({
    status: 503,
    type: 'server_error',
    message: `The gateway's shared state (${backend}) is unavailable, so this request cannot be checked against its limits. Retry in a moment.`,
    code: 'state_unavailable',
    retryable: true,
    retryAfterSeconds: 1,
  });
}
