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

/**
 * The longest `model` accepted. Real names are far shorter (an Ollama name with a registry
 * host is at most a few hundred characters); a longer one would be held in the router's
 * cache, span names and metric attributes for the life of the process.
 */
export const MAX_MODEL_NAME_LENGTH = 1024;

/** The body's `model`: a non-empty string of at most `MAX_MODEL_NAME_LENGTH` characters, else a 400. */
export function parseModelName(body: Json): string {
  const model = body.model;
  if (model === undefined || model === null || model === '') {
    throw invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  }
  if (typeof model !== 'string') throw invalidRequest("Invalid 'model': expected a string.", 'model', 'invalid_type');
  if (model.length > MAX_MODEL_NAME_LENGTH) {
    throw invalidRequest(`Invalid 'model': ${model.length} characters, longer than the ${MAX_MODEL_NAME_LENGTH} a model name may have. GET /v1/models lists the models.`, 'model', 'invalid_value');
  }
  return model;
}
