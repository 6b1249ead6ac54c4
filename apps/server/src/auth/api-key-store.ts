import { globMatch, ModelNotFoundError } from '@toolwire/core';
import { ConfigError } from '../config/config-error.ts';
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
  /**
   * Server tools added to every request of this key, whether or not the client names them.
   * Each must be allowed by `tools` (when set): anything else is a `ConfigError` at start.
   */
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
  /**
   * A 404 `model_not_found` unless the principal may use the model: the same answer as for a
   * model that does not exist, naming only what this key may use.
   */
  assertModel(principal: Principal, model: string): void;
  /**
   * For a key limited by `models`: any "model not found" error (the router's, naming every
   * provider, or an upstream's) → the key's own 404, so no other model's name leaks. Other
   * errors and unlimited keys pass through.
   */
  scopeModelError(principal: Principal, model: string, error: unknown): unknown;
}

function unauthorized(message: string): GatewayError {
  return new GatewayError({ status: 401, type: 'invalid_request_error', message, code: 'invalid_api_key', retryable: false });
}

function modelNotFound(principal: Principal, model: string): GatewayError {
  return new GatewayError({
    status: 404,
    type: 'invalid_request_error',
    message: `The model '${model}' does not exist or the API key '${principal.id}' may not use it. This key may use: ${principal.models?.join(', ') || '(none)'}.`,
    param: 'model',
    code: 'model_not_found',
    retryable: false,
  });
}

function isModelNotFound(error: unknown): boolean {
  if (ModelNotFoundError.isInstance(error)) return true;
  return GatewayError.isInstance(error) && error.status === 404 && error.code === 'model_not_found';
}

/** A key's `alwaysTools` outside its own `tools` would give it a tool it may not use. */
function checkAlwaysTools(key: ApiKeyConfig): void {
  if (key.tools === undefined || key.alwaysTools === undefined) return;
  const tools = key.tools;
  const outside = key.alwaysTools.filter((name) => !tools.some((pattern) => globMatch(pattern, name)));
  if (outside.length > 0) {
    throw new ConfigError({
      setting: `keys (id '${key.id}').alwaysTools`,
      message: `${outside.map((n) => `'${n}'`).join(', ')} ${outside.length === 1 ? 'is' : 'are'} not in this key's 'tools' (${tools.join(', ') || 'none'}). Add ${outside.length === 1 ? 'it' : 'them'} to 'tools' or remove ${outside.length === 1 ? 'it' : 'them'} from 'alwaysTools'.`,
    });
  }
}

/**
 * Creates the store; keys are known and compared only by their hash. Throws a `ConfigError`
 * for a key whose `alwaysTools` its own `tools` do not allow, for an id two keys share (they
 * would share one principal: its limits, its turns, its log lines) and for one key listed
 * under two ids.
 */
export function createApiKeyStore(keys: readonly ApiKeyConfig[]): ApiKeyStore {
  const byHash = new Map<string, Principal>();
  const ids = new Set<string>();
  for (const [index, key] of keys.entries()) {
    if (ids.has(key.id)) {
      throw new ConfigError({ setting: `keys[${index}].id`, message: `the id '${key.id}' is used by two keys. Give each key its own id.` });
    }
    ids.add(key.id);
    const hash = key.keyHash.toLowerCase();
    const sameKey = byHash.get(hash);
    if (sameKey !== undefined) {
      throw new ConfigError({
        setting: `keys[${index}].keyHash`,
        message: `the key with id '${key.id}' is the same key as the one with id '${sameKey.id}'. Keep one of them, or give one a new key.`,
      });
    }
    checkAlwaysTools(key);
    const principal: Principal = { id: key.id, alwaysTools: key.alwaysTools ?? [] };
    if (key.models) principal.models = key.models;
    if (key.tools) principal.tools = key.tools;
    if (key.requestsPerMinute !== undefined) principal.requestsPerMinute = key.requestsPerMinute;
    if (key.maxConcurrentRequests !== undefined) principal.maxConcurrentRequests = key.maxConcurrentRequests;
    byHash.set(hash, principal);
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
      throw modelNotFound(principal, model);
    },
    scopeModelError(principal, model, error) {
      if (principal.models === undefined || !isModelNotFound(error)) return error;
      return modelNotFound(principal, model);
    },
  };
}
