import { ToolwireError } from '@toolwire/core';
import type { ErrorEnvelope } from './openai-wire-types.ts';

/** OpenAI's error `type` values the gateway uses. */
export type GatewayErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'upstream_error';

/** What a `GatewayError` carries besides its message. */
export interface GatewayErrorOptions {
  status: number;
  message: string;
  type: GatewayErrorType;
  param?: string | null;
  code?: string | null;
  /** Seconds the client should wait (sent as `Retry-After` with a 429). */
  retryAfterSeconds?: number;
  /** Whether an SDK may retry (sets `x-should-retry`); defaults to true only for 429 and 5xx. */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * An error answered to the client as an HTTP status with OpenAI's envelope
 * (`{ error: { message, type, param, code } }`).
 */
export class GatewayError extends ToolwireError {
  static override readonly errorName = 'GatewayError';
  readonly status: number;
  readonly type: GatewayErrorType;
  readonly param: string | null;
  readonly code: string | null;
  readonly retryAfterSeconds: number | undefined;
  readonly retryable: boolean;
  constructor(options: GatewayErrorOptions) {
    super(options.message, { cause: options.cause });
    this.status = options.status;
    this.type = options.type;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.retryable = options.retryable ?? (options.status === 429 || options.status >= 500);
  }
  static override isInstance(error: unknown): error is GatewayError {
    return this.hasMarker(error, GatewayError.errorName);
  }

  /** The JSON body to send. */
  toEnvelope(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A 400 `invalid_request_error` about one request parameter. */
export function invalidRequest(message: string, param: string | null, code: string | null = 'invalid_value'): GatewayError {
  return new GatewayError({ status: 400, type: 'invalid_request_error', message, param, code });
}
