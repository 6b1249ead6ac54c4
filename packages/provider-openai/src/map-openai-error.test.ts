import { InvalidRequestError, ProviderError, ProviderServerError, RateLimitError, StreamError } from '@toolwire/core';
import { APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { isContextLengthMessage, mapOpenAIError, mapResponseErrorCode, retryAfterMs } from './map-openai-error.ts';

const context = { baseURL: 'http://127.0.0.1:1/v1', modelId: 'm' };

describe('retryAfterMs', () => {
  it('reads retry-after-ms, retry-after seconds and an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), Date.parse('Thu, 01 Jan 2026 00:00:00 GMT'))).toBe(10_000);
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });
});

describe('isContextLengthMessage', () => {
  it('recognises OpenAI, vLLM and llama.cpp wording', () => {
    expect(isContextLengthMessage('x', 'context_length_exceeded')).toBe(true);
    expect(isContextLengthMessage("This model's maximum context length is 4096 tokens.", undefined)).toBe(true);
    expect(isContextLengthMessage('the request exceeds the available context size', undefined)).toBe(true);
    expect(isContextLengthMessage('Invalid value for temperature', undefined)).toBe(false);
  });
});

describe('mapResponseErrorCode', () => {
  it('maps codes of errors reported inside a response', () => {
    expect(RateLimitError.isInstance(mapResponseErrorCode({ code: 'rate_limit_exceeded', message: 'x' }))).toBe(true);
    expect(ProviderServerError.isInstance(mapResponseErrorCode({ code: 'server_error', message: 'x' }))).toBe(true);
    expect(InvalidRequestError.isInstance(mapResponseErrorCode({ code: 'invalid_prompt', message: 'x' }))).toBe(true);
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
