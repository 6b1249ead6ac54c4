import { globMatch } from '@toolwire/core';
import { GatewayError } from '../wire/gateway-error.ts';
import { hashApiKey } from './hash-key.ts';

/** One client key's rights, as configured (the key itself only as its hash). */
export interface ApiKeyConfig {
  /** A name for logs and audit events; never the key. */
  id: string;
  /** `sha256:<hex>` of the key (`toolwire-server --hash-key <key>` prints it). */
  keyHash: string;
  /** Model names or `*` patterns (`ollama/*`) this key may use; absent: all. */
  models?: string[];
  /** Server tools (names or `*` patterns) this key may use; absent: all configured ones. */
  tools?: string[];
  /** Server tools added to every request of this key, whether or not the client names them. */
  alwaysTools?: string[];
  /** Requests per minute; absent: unlimited. */
  requestsPerMinute?: number;
  /** Requests of this key running at once (streams included), across all instances sharing state; absent: unlimited. */
  maxConcurrentRequests?: number;
}

/** Who made a request, with their rights. */
export interface Principal {
  id: string;
  models?: readonly string[];
  tools?: readonly string[];
  alwaysTools: readonly string[];
  requestsPerMinute?: number;
  maxConcurrentRequests?: number;
}

/** The principal of every request on a server without keys (loopback only). */
export const ANONYMOUS: Principal = { id: 'anonymous', alwaysTools: [] };

/** Looks up keys by hash and answers permission questions. */
export interface ApiKeyStore {
  /** True when keys are configured and requests must carry one. */
  readonly required: boolean;
  /** The principal for an `Authorization` header value; a 401 `GatewayError` when missing or unknown. */
  authenticate(authorization: string | undefined): Principal;
  /** A 403 `GatewayError` unless the principal may use the model. */
  assertModel(principal: Principal, model: string): void;
}

function unauthorized(message: string): GatewayError {
  return new GatewayError({ status: 401, type: 'invalid_request_error', message, code: 'invalid_api_key', retryable: false });
}

/** Creates the store; keys are known and compared only by their hash. */
export function createApiKeyStore(keys: readonly ApiKeyConfig[]): ApiKeyStore {
  const byHash = new Map<string, Principal>();
  for (const key of keys) {
    const principal: Principal = { id: key.id, alwaysTools: key.alwaysTools ?? [] };
    if (key.models) principal.models = key.models;
    if (key.tools) principal.tools = key.tools;
    if (key.requestsPerMinute !== undefined) principal.requestsPerMinute = key.requestsPerMinute;
    if (key.maxConcurrentRequests !== undefined) principal.maxConcurrentRequests = key.maxConcurrentRequests;
    byHash.set(key.keyHash.toLowerCase(), principal);
  }
  const required = byHash.size > 0;
  return {
    required,
    authenticate(authorization) {
      if (!required) return ANONYMOUS;
      if (authorization === undefined || authorization === '') {
        throw unauthorized("You didn't provide an API key. Send it in the Authorization header as 'Bearer <key>'.");
      }
      const space = authorization.indexOf(' ');
      const scheme = space > 0 ? authorization.slice(0, space) : '';
      const key = space > 0 ? authorization.slice(space + 1).trim() : '';
      if (scheme.toLowerCase() !== 'bearer' || key === '') {
        throw unauthorized("The Authorization header must be 'Bearer <key>'.");
      }
      const hash = hashApiKey(key);
      // Looked up by SHA-256 digest: lookup timing says nothing usable about the key itself.
      const principal = byHash.get(hash);
      if (principal === undefined) {
        throw unauthorized('Incorrect API key provided. Ask the gateway operator for a valid key.');
      }
      return principal;
    },
    assertModel(principal, model) {
      if (principal.models === undefined || principal.models.some((pattern) => globMatch(pattern, model))) return;
      throw new GatewayError({
        status: 403,
        type: 'permission_error',
        message: `The API key '${principal.id}' may not use the model '${model}'. Allowed: ${principal.models.join(', ') || '(none)'}.`,
        param: 'model',
        code: 'model_not_allowed',
        retryable: false,
      });
    },
  };
}
