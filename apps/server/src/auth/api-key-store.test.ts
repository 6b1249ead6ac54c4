import { ModelNotFoundError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import { ANONYMOUS, createApiKeyStore } from './api-key-store.ts';
import { hashApiKey } from './hash-key.ts';
import { createRateLimiter } from './rate-limiter.ts';

const store = createApiKeyStore([
  { id: 'team-a', keyHash: hashApiKey('sk-a'), models: ['ollama/*', 'openai/gpt-4o'], tools: ['calculate'] },
  { id: 'admin', keyHash: hashApiKey('sk-admin') },
]);

function statusOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (error) {
    return GatewayError.isInstance(error) ? error.status : undefined;
  }
  return undefined;
}

describe('createApiKeyStore', () => {
  it('finds the principal of a Bearer key by its hash', () => {
    expect(store.authenticate('Bearer sk-a').id).toBe('team-a');
    expect(store.authenticate('bearer sk-admin').id).toBe('admin');
  });

  it('answers 401 without a key, with a wrong key or with another scheme', () => {
    expect(statusOf(() => store.authenticate(undefined))).toBe(401);
    expect(statusOf(() => store.authenticate('Bearer sk-wrong'))).toBe(401);
    expect(statusOf(() => store.authenticate('Basic sk-a'))).toBe(401);
  });

  it('lets everyone in as anonymous when no keys are configured', () => {
    const open = createApiKeyStore([]);
    expect(open.required).toBe(false);
    expect(open.authenticate(undefined)).toBe(ANONYMOUS);
  });

  it('answers 404 for a model outside the key list, naming only what the key may use', () => {
    const principal = store.authenticate('Bearer sk-a');
    expect(statusOf(() => store.assertModel(principal, 'ollama/llama3.1'))).toBeUndefined();
    expect(statusOf(() => store.assertModel(principal, 'openai/gpt-4o'))).toBeUndefined();
    expect(statusOf(() => store.assertModel(principal, 'openai/o3'))).toBe(404);
    let message = '';
    try {
      store.assertModel(principal, 'openai/o3');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("The model 'openai/o3' does not exist or the API key 'team-a' may not use it. This key may use: ollama/*, openai/gpt-4o.");
  });

  it("rewrites a limited key's model-not-found errors so no other model's name leaks", () => {
    const principal = store.authenticate('Bearer sk-a');
    const routerError = new GatewayError({ status: 404, type: 'invalid_request_error', message: "no provider; try openai/, chatgpt/, secret/", code: 'model_not_found' });
    const upstream = new ModelNotFoundError({ provider: 'ollama', modelId: 'qwen', message: 'Configured: ollama/private-model' });
    for (const error of [routerError, upstream]) {
      const scoped = store.scopeModelError(principal, 'ollama/qwen', error) as GatewayError;
      expect(scoped.status).toBe(404);
      expect(scoped.message).not.toMatch(/chatgpt|secret|private-model/);
      expect(scoped.message).toContain('This key may use: ollama/*, openai/gpt-4o.');
    }
    const other = new Error('boom');
    expect(store.scopeModelError(principal, 'ollama/qwen', other)).toBe(other);
    expect(store.scopeModelError(store.authenticate('Bearer sk-admin'), 'ollama/qwen', routerError)).toBe(routerError);
  });

  it("refuses at start a key whose alwaysTools are outside its own tools", () => {
    const make = () => createApiKeyStore([{ id: 'k', keyHash: hashApiKey('sk-k'), tools: ['calculate'], alwaysTools: ['calculate', 'fetch_url'] }]);
    expect(make).toThrow(ConfigError);
    expect(make).toThrow("keys (id 'k').alwaysTools: 'fetch_url' is not in this key's 'tools' (calculate). Add it to 'tools' or remove it from 'alwaysTools'.");
    expect(() => createApiKeyStore([{ id: 'k', keyHash: hashApiKey('sk-k'), tools: ['get_*'], alwaysTools: ['get_current_time'] }])).not.toThrow();
    expect(() => createApiKeyStore([{ id: 'k', keyHash: hashApiKey('sk-k'), alwaysTools: ['fetch_url'] }])).not.toThrow();
  });

  it('refuses two keys with one id (for embedders too), naming the id and never a key', () => {
    const make = () =>
      createApiKeyStore([
        { id: 'team-a', keyHash: hashApiKey('sk-a'), requestsPerMinute: 2 },
        { id: 'team-b', keyHash: hashApiKey('sk-b') },
        { id: 'team-a', keyHash: hashApiKey('sk-other-team') },
      ]);
    expect(make).toThrow(ConfigError);
    expect(make).toThrow("keys[2].id: the id 'team-a' is used by two keys. Give each key its own id.");
  });

  it('refuses one key under two ids: its requests would belong to either', () => {
    const make = () =>
      createApiKeyStore([
        { id: 'team-a', keyHash: hashApiKey('sk-a') },
        { id: 'team-b', keyHash: hashApiKey('sk-a').toUpperCase().replace('SHA256:', 'sha256:') },
      ]);
    expect(make).toThrow("keys[1].keyHash: the key with id 'team-b' is the same key as the one with id 'team-a'. Keep one of them, or give one a new key.");
  });
});

describe('createRateLimiter', () => {
  it('allows the per-minute allowance, then says how long to wait', () => {
    let now = 0;
    const limiter = createRateLimiter(() => now);
    expect(limiter.take('k', 2)).toEqual({ allowed: true });
    expect(limiter.take('k', 2)).toEqual({ allowed: true });
    expect(limiter.take('k', 2)).toEqual({ allowed: false, retryAfterSeconds: 30 });
    now = 30_000;
    expect(limiter.take('k', 2)).toEqual({ allowed: true });
  });

  it('keeps one allowance per key', () => {
    const limiter = createRateLimiter(() => 0);
    expect(limiter.take('a', 1).allowed).toBe(true);
    expect(limiter.take('b', 1).allowed).toBe(true);
    expect(limiter.take('a', 1).allowed).toBe(false);
  });
});
