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

/** The `shutting_down` error a request's signal was aborted with at the end of the shutdown grace, if it was. */
export function shutdownReason(signal: AbortSignal): GatewayError | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return GatewayError.isInstance(reason) && reason.code === 'shutting_down' ? reason : undefined;
}
