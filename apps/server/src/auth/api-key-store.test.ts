import { describe, expect, it } from 'vitest';
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

  it('answers 403 for a model outside the key list, by exact name or prefix pattern', () => {
    const principal = store.authenticate('Bearer sk-a');
    expect(statusOf(() => store.assertModel(principal, 'ollama/llama3.1'))).toBeUndefined();
    expect(statusOf(() => store.assertModel(principal, 'openai/gpt-4o'))).toBeUndefined();
    expect(statusOf(() => store.assertModel(principal, 'openai/o3'))).toBe(403);
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
