import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors.ts';
import { redactErrorSecrets } from './redact-error-secrets.ts';

describe('redactErrorSecrets', () => {
  it('hides a key the server echoed, in the error and down its cause chain', () => {
    const cause = new Error('401 Incorrect API key provided: sk-live-0123456789.');
    const error = new ProviderError({ provider: 'acme', message: 'Incorrect API key provided: sk-live-0123456789.', cause });
    expect(redactErrorSecrets(error, ['sk-live-0123456789'])).toBe(error);
    expect(error.message).toBe('Incorrect API key provided: [redacted].');
    expect(cause.message).toBe('401 Incorrect API key provided: [redacted].');
    expect(error.stack).not.toContain('sk-live-0123456789');
    expect(cause.stack).not.toContain('sk-live-0123456789');
  });

  it('leaves short values and missing ones alone', () => {
    const error = new Error('no key here: abc');
    redactErrorSecrets(error, [undefined, 'abc', '']);
    expect(error.message).toBe('no key here: abc');
  });

  it('survives a cause chain that loops', () => {
    const error = new Error('token tok-1234567890');
    (error as { cause?: unknown }).cause = error;
    redactErrorSecrets(error, ['tok-1234567890']);
    expect(error.message).toBe('token [redacted]');
  });
});
