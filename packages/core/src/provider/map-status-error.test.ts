import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  ProviderServerError,
  RateLimitError,
} from '../errors.ts';
import { mapProviderError } from './map-status-error.ts';

const fail = (status: number | undefined, extra: Partial<Parameters<typeof mapProviderError>[0]> = {}) =>
  mapProviderError({ provider: 'acme', status, message: 'the provider said no', ...extra });

describe('mapProviderError', () => {
  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, ModelNotFoundError],
    [429, RateLimitError],
    [400, InvalidRequestError],
    [422, InvalidRequestError],
    [500, ProviderServerError],
    [503, ProviderServerError],
  ] as const)('maps %i to %s', (status, errorClass) => {
    const error = fail(status);
    expect(errorClass.isInstance(error)).toBe(true);
    expect(error.status).toBe(status);
    expect(error.message).toContain('the provider said no');
  });

  it('adds the provider hint for the class', () => {
    expect(fail(401, { hints: { authentication: 'check ACME_API_KEY' } }).message).toBe('the provider said no (check ACME_API_KEY)');
    const missing = fail(404, { modelId: 'm1', hints: { notFound: 'list the models' } });
    expect(ModelNotFoundError.isInstance(missing) ? missing.modelId : undefined).toBe('m1');
  });

  // Found by fuzzing provider-openai: a Responses error `{"error":{"message":" "}}` gave an error whose message was " ".
  it('says what happened when the provider gave a blank message', () => {
    const error = fail(575, { message: ' ', code: 'oops' });
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(error.message).toBe('The acme API reported an error (HTTP 575) with the code "oops" but gave no message.');
    expect(fail(undefined, { message: '' }).message).toBe('The acme API reported an error but gave no message.');
  });

  it('reads the retry delay from headers, then from the message', () => {
    const fromHeader = fail(429, { headers: new Headers({ 'retry-after': '2' }) });
    expect(RateLimitError.isInstance(fromHeader) ? fromHeader.retryAfterMs : undefined).toBe(2000);
    const fromText = fail(429, { message: 'Slow down. Try again in 35 seconds.' });
    expect(RateLimitError.isInstance(fromText) ? fromText.retryAfterMs : undefined).toBe(35_000);
    expect(fromText.retryable).toBe(true);
  });

  it('words insufficient_quota as a billing quota that retrying does not fix', () => {
    const error = fail(429, { code: 'insufficient_quota', message: 'You exceeded your current quota.' });
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('billing quota');
  });

  it('recognises context overflow whatever the status', () => {
    expect(ContextLengthExceededError.isInstance(fail(400, { message: "This model's maximum context length is 8192 tokens." }))).toBe(true);
    expect(ContextLengthExceededError.isInstance(fail(undefined, { code: 'context_length_exceeded' }))).toBe(true);
  });

  it('maps stream error codes without a status', () => {
    expect(RateLimitError.isInstance(fail(undefined, { code: 'rate_limit_exceeded', message: 'try again in 250ms' }))).toBe(true);
    expect(ProviderServerError.isInstance(fail(undefined, { code: 'server_is_overloaded' }))).toBe(true);
    expect(InvalidRequestError.isInstance(fail(undefined, { code: 'invalid_prompt' }))).toBe(true);
    const other = fail(undefined, { code: 'mystery' });
    expect(ProviderError.isInstance(other) && !InvalidRequestError.isInstance(other)).toBe(true);
  });
});
