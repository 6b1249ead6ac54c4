import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderServerError,
  RateLimitError,
  UsageLimitError,
} from '@toolwire/core';
import { describe, expect, it } from 'vitest';

import { backendError, streamFailureError } from './map-chatgpt-error.ts';

const fail = (status: number, body: unknown, extra: { knownModels?: string[]; headers?: Record<string, string> } = {}) =>
  backendError({
    status,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: new Headers(extra.headers),
    modelId: 'gpt-9',
    ...(extra.knownModels ? { knownModels: extra.knownModels } : {}),
  });

const usageLimitBody = {
  error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: 1777936568, resets_in_seconds: 13872 },
};

describe('backendError', () => {
  it('turns a 429 usage_limit_reached into a non-retryable UsageLimitError with the reset time', () => {
    const limit = fail(429, usageLimitBody);
    if (!UsageLimitError.isInstance(limit)) throw new Error('expected a UsageLimitError');
    expect(limit.resetsAt?.toISOString()).toBe(new Date(1777936568 * 1000).toISOString());
    expect(limit.retryable).toBe(false);
    expect(limit.code).toBe('usage_limit_reached');
    expect(limit.message).toContain('plus plan');
    expect(limit.message).toContain(new Date(1777936568 * 1000).toISOString());
  });

  it('leaves out a reset time no date can hold, instead of throwing', () => {
    for (const reset of [{ resets_at: 1e300 }, { resets_at: -1e20 }, { resets_in_seconds: 1e300 }]) {
      const limit = fail(429, { error: { type: 'usage_limit_reached', message: 'limit', ...reset } });
      if (!UsageLimitError.isInstance(limit)) throw new Error('expected a UsageLimitError');
      expect(limit.resetsAt).toBeUndefined();
      expect(limit.retryAfterMs).toBeUndefined();
      expect(limit.message).toContain('Try again later');
      const failed = streamFailureError({ code: 'usage_limit_reached', message: 'x', ...reset });
      expect(UsageLimitError.isInstance(failed) ? failed.resetsAt : 'not a usage limit').toBeUndefined();
    }
  });

  it('treats the 404 variant of usage_limit_reached the same way', () => {
    expect(UsageLimitError.isInstance(fail(404, usageLimitBody))).toBe(true);
  });

  it('says when the plan does not include Codex', () => {
    const error = fail(429, { error: { type: 'usage_not_included', message: 'no codex' } });
    expect(PermissionDeniedError.isInstance(error)).toBe(true);
    expect(error.message).toContain('does not include Codex');
  });

  it('quotes contract errors and says what to change', () => {
    const missing = fail(400, { detail: 'Instructions are required' });
    expect(InvalidRequestError.isInstance(missing)).toBe(true);
    expect(missing.message).toContain('"Instructions are required"');
    expect(fail(400, { detail: 'Instructions are not valid' }).message).toContain('Drop a custom `instructions` setting');
    const unsupported = fail(400, { detail: 'Unsupported parameter: max_output_tokens' });
    expect(unsupported.message).toContain('"Unsupported parameter: max_output_tokens"');
    expect(unsupported.message).toContain('Remove that setting');
    const schema = fail(400, { error: { message: "Invalid schema for function 'x': bad", type: 'invalid_request_error', code: 'invalid_function_parameters' } });
    expect(schema.message).toContain('parameter schema');
  });

  it('names the account models when the model is not served', () => {
    const error = fail(400, { detail: "The 'gpt-9' model is not supported when using Codex with a ChatGPT account." }, { knownModels: ['gpt-5.4', 'gpt-5.5'] });
    expect(ModelNotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain('gpt-5.4, gpt-5.5');
  });

  it('explains an HTML 403 as a block, a 5xx as retryable, a plain 429 with retry-after', () => {
    expect(fail(403, '<html>cf</html>').message).toContain('Cloudflare');
    expect(ProviderServerError.isInstance(fail(503, { error: { code: 'server_is_overloaded' } }))).toBe(true);
    const limited = fail(429, { error: { type: 'rate_limit', message: 'slow down' } }, { headers: { 'retry-after': '3' } });
    if (!RateLimitError.isInstance(limited) || UsageLimitError.isInstance(limited)) throw new Error('expected a plain RateLimitError');
    expect(limited.retryAfterMs).toBe(3000);
  });

  it("leaves the status classes to core's mapper, with this backend's advice", () => {
    const auth = fail(401, { detail: 'Unauthorized' });
    expect(AuthenticationError.isInstance(auth)).toBe(true);
    expect(auth.message).toBe('The ChatGPT backend said "Unauthorized" (the sign-in was rejected even after a refresh: sign in again with `toolwire login chatgpt`)');
    const missing = fail(404, { detail: 'Not Found' }, { knownModels: ['gpt-5.4'] });
    expect(ModelNotFoundError.isInstance(missing) ? missing.modelId : undefined).toBe('gpt-9');
    expect(missing.message).toContain("use one of this account's models: gpt-5.4");
    const long = fail(400, { error: { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' } });
    expect(ContextLengthExceededError.isInstance(long)).toBe(true);
    expect(long.message).toContain('shorten the conversation');
    expect(fail(429, { error: { type: 'rate_limit', message: 'slow down' } }, { headers: { 'retry-after': '3' } }).message).toContain('wait 3 s and try again');
    // An absurd wait is said as at most a week (as the gateway's Retry-After header).
    const absurd = fail(429, { error: { type: 'rate_limit', message: 'slow down' } }, { headers: { 'retry-after': '99999999999999980000' } });
    expect(absurd.message).toContain('wait 604800 s and try again');
    expect(absurd).toMatchObject({ retryAfterMs: 604_800_000 });
  });
});

describe('streamFailureError', () => {
  it('maps response.failed codes to core errors', () => {
    expect(ContextLengthExceededError.isInstance(streamFailureError({ code: 'context_length_exceeded', message: 'too long' }))).toBe(true);
    const limited = streamFailureError({ code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again in 11.05s.' });
    expect(RateLimitError.isInstance(limited) ? limited.retryAfterMs : undefined).toBeCloseTo(11050);
    expect(UsageLimitError.isInstance(streamFailureError({ code: 'usage_limit_reached', message: 'x', resets_in_seconds: 60 }))).toBe(true);
  });

  it('reads "Try again in 35 seconds."-style delays and words insufficient_quota as a billing quota', () => {
    const limited = streamFailureError({ code: 'rate_limit_exceeded', message: 'Rate limit reached. Try again in 35 seconds.' });
    expect(RateLimitError.isInstance(limited) ? limited.retryAfterMs : undefined).toBe(35_000);
    const quota = streamFailureError({ code: 'insufficient_quota', message: 'You exceeded your current quota.' });
    expect(RateLimitError.isInstance(quota) && !UsageLimitError.isInstance(quota)).toBe(true);
    expect(quota.retryable).toBe(false);
    expect(quota.message).toContain('billing quota');
    expect(fail(429, { error: { code: 'insufficient_quota', message: 'quota' } }).message).toContain('billing quota');
  });

  it('says what to do when the backend refuses the reasoning effort', () => {
    const error = fail(400, {
      error: {
        message: "Unsupported value: 'reasoning.effort' does not support 'minimal' with this model. Supported values are: 'low', 'medium', and 'high'.",
        type: 'invalid_request_error',
        param: 'reasoning.effort',
        code: 'unsupported_value',
      },
    });
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error.message).toContain('Set reasoningEffort to a level this model takes');
  });
});
