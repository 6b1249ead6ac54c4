import { InvalidRequestError, ProviderError, ProviderServerError, RateLimitError, StreamError } from '@toolwire/core';
import { APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { mapOpenAIError, mapResponseErrorCode } from './map-openai-error.ts';

const context = { baseURL: 'http://127.0.0.1:1/v1', modelId: 'm' };

describe('mapResponseErrorCode', () => {
  it('maps codes of errors reported inside a response', () => {
    expect(RateLimitError.isInstance(mapResponseErrorCode({ code: 'rate_limit_exceeded', message: 'x' }))).toBe(true);
    expect(ProviderServerError.isInstance(mapResponseErrorCode({ code: 'server_error', message: 'x' }))).toBe(true);
    expect(InvalidRequestError.isInstance(mapResponseErrorCode({ code: 'invalid_prompt', message: 'x' }))).toBe(true);
    const quota = mapResponseErrorCode({ code: 'insufficient_quota', message: 'You exceeded your current quota.' });
    expect(RateLimitError.isInstance(quota) && !quota.retryable && quota.message.includes('billing quota')).toBe(true);
    const other = mapResponseErrorCode({ code: 'something_new', message: 'Unexpected.' });
    expect(ProviderError.isInstance(other) && other.code).toBe('something_new');
  });
});

describe('mapOpenAIError', () => {
  it('turns an SDK abort into the signal reason', () => {
    const controller = new AbortController();
    controller.abort();
    expect(mapOpenAIError(new APIUserAbortError(), { ...context, signal: controller.signal })).toBe(controller.signal.reason);
    expect(mapOpenAIError(new APIUserAbortError(), context).name).toBe('AbortError');
  });

  it("turns a FETCH_SIGNAL fetch's 499 after an abort into the signal reason, and keeps a status error of a live request", () => {
    const controller = new AbortController();
    controller.abort(new Error('the client left'));
    const cancelled = APIError.generate(499, { error: { message: 'aborted' } }, undefined, new Headers());
    expect(mapOpenAIError(cancelled, { ...context, signal: controller.signal })).toBe(controller.signal.reason);
    const server = APIError.generate(500, { error: { message: 'boom' } }, undefined, new Headers());
    expect(ProviderServerError.isInstance(mapOpenAIError(server, { ...context, signal: controller.signal }))).toBe(true);
    expect(ProviderError.isInstance(mapOpenAIError(cancelled, context))).toBe(true);
  });

  it('keeps the body message of an API error without the SDK status prefix', () => {
    const error = APIError.generate(400, { error: { message: 'Container is expired.', code: null } }, undefined, new Headers());
    expect(mapOpenAIError(error, context).message).toBe('Container is expired.');
  });

  it('turns malformed SSE JSON into a StreamError', () => {
    expect(StreamError.isInstance(mapOpenAIError(new SyntaxError('bad'), context))).toBe(true);
  });

  it('wraps unknown failures in a ProviderError', () => {
    expect(ProviderError.isInstance(mapOpenAIError(new TypeError('boom'), context))).toBe(true);
  });
});
