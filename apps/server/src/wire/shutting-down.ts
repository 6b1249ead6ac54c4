import { GatewayError } from './gateway-error.ts';

/**
 * The retryable 503 `shutting_down` error: a request that arrives once the gateway stopped
 * taking new ones, or an answer still running at the end of the shutdown grace period (then
 * as the stream's error frame). SDKs retry it, and a client can tell it from a network failure.
 */
export function shuttingDownError(cut = false): GatewayError {
  return new GatewayError({
    status: 503,
    type: 'server_error',
    message: cut
      ? 'The gateway shut down before this answer was complete. Send the request again; another instance will answer it.'
      : 'The gateway is shutting down. Retry on another instance or in a moment.',
    code: 'shutting_down',
    retryable: true,
  });
}

/**
 * The gateway's own reason a request's signal was aborted with, if it was: the `shutting_down`
 * error at the end of the shutdown grace, or `request_timeout` past `limits.maxRequestDurationMs`.
 * The client is told it (an error envelope, or the stream's error frames). Any other abort is the
 * client going away, told to nobody.
 */
export function gatewayAbortReason(signal: AbortSignal): GatewayError | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return GatewayError.isInstance(reason) && (reason.code === 'shutting_down' || reason.code === 'request_timeout') ? reason : undefined;
}

/**
 * The 504 `request_timeout` error of a request that ran longer than `limits.maxRequestDurationMs`
 * (its upstream and server tools stopped). Not retryable: the same request would most likely run
 * as long again.
 */
export function requestTimeoutError(ms: number): GatewayError {
  return new GatewayError({
    status: 504,
    type: 'server_error',
    message: `The request ran longer than ${ms} ms (limits.maxRequestDurationMs), so the gateway stopped it: its upstream call and server tools were stopped. An upstream that keeps sending without finishing, or a very long answer, takes this long; raise the limit if your models answer for longer.`,
    code: 'request_timeout',
    retryable: false,
  });
}
