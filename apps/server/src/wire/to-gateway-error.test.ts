import { AuthExpiredError, AuthenticationError, InvalidRequestError, ModelNotFoundError, ProviderServerError, ProviderUnavailableError, RateLimitError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { GatewayError } from './gateway-error.ts';
import { toGatewayError } from './to-gateway-error.ts';

describe('toGatewayError', () => {
  it('keeps a provider 400 a 400, so SDKs do not retry it', () => {
    const error = toGatewayError(new InvalidRequestError({ provider: 'openai', status: 400, message: 'bad', code: 'x' }));
    expect([error.status, error.code, error.retryable]).toEqual([400, 'x', false]);
  });

  it('maps a missing upstream model to 404', () => {
    expect(toGatewayError(new ModelNotFoundError({ provider: 'ollama', status: 404, message: 'no model' })).status).toBe(404);
  });

  it('maps upstream rate limiting to 429 with Retry-After seconds', () => {
    const error = toGatewayError(new RateLimitError({ provider: 'openai', status: 429, message: 'slow down', retryAfterMs: 2500 }));
    expect([error.status, error.retryAfterSeconds]).toEqual([429, 3]);
  });

  it('passes an absurd upstream wait on as at most a week, and none that is not a number', () => {
    const absurd = toGatewayError(new RateLimitError({ provider: 'chatgpt', status: 429, message: 'slow down', retryAfterMs: 1e23 }));
    expect(absurd.retryAfterSeconds).toBe(7 * 24 * 60 * 60);
    const notANumber = toGatewayError(new RateLimitError({ provider: 'openai', status: 429, message: 'slow down', retryAfterMs: Number.NaN }));
    expect(notANumber.retryAfterSeconds).toBeUndefined();
  });

  it("turns the upstream's rejection of the gateway's own credentials into a non-retryable 502, not a 401", () => {
    const error = toGatewayError(new AuthenticationError({ provider: 'openai', status: 401, message: 'bad key' }));
    expect([error.status, error.code, error.retryable]).toEqual([502, 'upstream_authentication_failed', false]);
    expect(error.message).not.toContain('bad key');
  });

  it('passes on how to sign in again when the gateway’s sign-in to a provider expired', () => {
    const error = toGatewayError(new AuthExpiredError({ provider: 'chatgpt', status: 401, code: 'refresh_token_reused', message: 'The ChatGPT sign-in can no longer be refreshed: sign in again with `toolwire login chatgpt`.' }));
    expect([error.status, error.code, error.retryable]).toEqual([502, 'upstream_sign_in_required', false]);
    expect(error.message).toContain('toolwire login chatgpt');
  });

  it('maps unreachable and failing upstreams to 503 and 502', () => {
    expect(toGatewayError(new ProviderUnavailableError({ provider: 'ollama', message: 'ECONNREFUSED', baseURL: 'http://x' })).status).toBe(503);
    expect(toGatewayError(new ProviderServerError({ provider: 'openai', status: 500, message: 'oops' })).status).toBe(502);
  });

  it("does not call an upstream that answered and then lost the connection one that 'cannot be reached'", () => {
    const lost = new ProviderUnavailableError({ provider: 'openai', baseURL: 'http://x', message: 'The connection to http://x was lost while the answer was read, so there is no answer.' });
    const error = toGatewayError(lost);
    expect([error.status, error.code]).toEqual([503, 'upstream_unavailable']);
    expect(error.message).toBe('The openai provider is unavailable: The connection to http://x was lost while the answer was read, so there is no answer.');
  });

  it('hides the details of unexpected errors behind a 500', () => {
    const error = toGatewayError(new Error('secret internal state'));
    expect(error.status).toBe(500);
    expect(error.message).not.toContain('secret');
  });

  it('passes a GatewayError through unchanged', () => {
    const original = new GatewayError({ status: 403, type: 'permission_error', message: 'no' });
    expect(toGatewayError(original)).toBe(original);
  });
});
