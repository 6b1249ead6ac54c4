import type { GatewayError } from './gateway-error.ts';
import { invalidRequest } from './gateway-error.ts';

/** A JSON object as it came in the request body. */
export type Json = Record<string, unknown>;

/** Whether a request value is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A 400 naming a feature the gateway refuses rather than silently dropping. */
export function unsupported(feature: string, param: string, hint: string): GatewayError {
  return invalidRequest(`${feature} is not supported by this gateway. ${hint}`, param, 'unsupported_value');
}
