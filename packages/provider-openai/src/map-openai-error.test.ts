import { InvalidRequestError, ProviderError, ProviderServerError, ProviderUnavailableError, RateLimitError, StreamError, UpstreamTimeoutError } from '@toolwire/core';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
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
  it("passes on the fetch's UpstreamTimeoutError that the SDK wrapped as a connection error (no retries left)", () => {
    const silent = new UpstreamTimeoutError({ timeoutMs: 500, phase: 'headers' });
    expect(mapOpenAIError(new APIConnectionError({ cause: silent }), context)).toBe(silent);
    expect(mapOpenAIError(Object.assign(new APIConnectionTimeoutError(), { cause: silent }), context)).toBe(silent);
  });

  it("names a connection error's cause without doubling its final period", () => {
    const error = mapOpenAIError(new APIConnectionError({ cause: new Error('socket hang up.') }), context);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).toBe(`Could not reach ${context.baseURL}: socket hang up. Check that the server is running and that baseURL is right.`);
  });

  it('turns an SDK abort into the signal reason', () => {
    const controller = new AbortController();
    controller.abort();
    expect(mapOpenAIError(new APIUserAbortError(), { ...context, signal: controller.signal })).toBe(controller.signal.reason);
    expect(mapOpenAIError(new APIUserAbortError(), context).name).toBe('AbortError');
  });

  it('keeps an upstream status error, a 499 too, when no abort came before it', () => {
    const upstream = APIError.generate(499, { error: { message: 'client closed request' } }, undefined, new Headers());
    expect(ProviderError.isInstance(mapOpenAIError(upstream, context))).toBe(true);
    expect(ProviderError.isInstance(mapOpenAIError(upstream, { ...context, signal: new AbortController().signal }))).toBe(true);
    // A status error that came in before an abort stays what it was, not the abort's reason.
    const controller = new AbortController();
    controller.abort(new Error('the client left'));
    const server = APIError.generate(500, { error: { message: 'boom' } }, undefined, new Headers());
    expect(ProviderServerError.isInstance(mapOpenAIError(server, { ...context, signal: controller.signal }))).toBe(true);
  });

  it('keeps the body message of an API error without the SDK status prefix', () => {
    const error = APIError.generate(400, { error: { message: 'Container is expired.', code: null } }, undefined, new Headers());
    expect(mapOpenAIError(error, context).message).toBe('Container is expired.');
  });

  it('turns malformed SSE JSON into a StreamError', () => {
    expect(StreamError.isInstance(mapOpenAIError(new SyntaxError('bad'), context))).toBe(true);
  });

  it("says the connection was lost when the body broke off after the headers (Node's bare 'aborted', ECONNRESET)", () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    const mapped = mapOpenAIError(aborted, context);
    expect(ProviderUnavailableError.isInstance(mapped)).toBe(true);
    expect(mapped.message).toBe(
      'The connection to http://127.0.0.1:1/v1 was lost while the answer was read, so there is no answer. Retry the request; if it keeps happening, check the server (it may have crashed) or a proxy in between.',
    );
  });

  it('wraps unknown failures in a ProviderError', () => {
    expect(ProviderError.isInstance(mapOpenAIError(new TypeError('boom'), context))).toBe(true);
  });
});
