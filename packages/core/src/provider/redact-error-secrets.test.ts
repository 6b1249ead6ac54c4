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

describe('redactErrorSecrets, other spellings and fields', () => {
  const KEY = 'sk-proj-Zx8+Qw/4Er7Ty1Ui5Op9As3Df6Gh2Jk';

  it('hides the key percent-encoded, JSON-escaped, base64 in a Basic credential and cut, in the message, the stack and the cause', () => {
    const cause = new Error(`upstream said {"detail":"key ${KEY.replaceAll('/', '\\/')} refused"} for ?key=${encodeURIComponent(KEY)}`);
    const error = new ProviderError({
      provider: 'acme',
      message: `Basic ${Buffer.from(`me:${KEY}`).toString('base64')} and ${KEY.slice(0, 16)}...`,
      cause,
    });
    redactErrorSecrets(error, [KEY]);
    for (const text of [error.message, error.stack, cause.message, cause.stack]) {
      expect(text).not.toContain(KEY.slice(8, 18));
      expect(text).not.toContain(encodeURIComponent(KEY).slice(8, 18));
      expect(text).not.toContain(Buffer.from(`me:${KEY}`).toString('base64').slice(8, 20));
    }
    expect(error.message).toBe('Basic [redacted] and [redacted]...');
  });

  it('hides the key in the data an error carries (its code, a parsed body), which a logger prints', () => {
    const cause = Object.assign(new Error('401'), { error: { message: `bad key ${KEY}`, details: [{ hint: KEY.toUpperCase() }] }, headers: new Response(null, { headers: { 'x-seen-key': KEY, 'x-request-id': 'req_1' } }).headers });
    const error = new ProviderError({ provider: 'acme', message: 'refused', code: KEY, cause });
    redactErrorSecrets(error, [KEY]);
    expect(error.code).toBe('[redacted]');
    expect(cause.error).toEqual({ message: 'bad key [redacted]', details: [{ hint: '[redacted]' }] });
    expect(Object.fromEntries(cause.headers)).toEqual({ 'x-seen-key': '[redacted]', 'x-request-id': 'req_1' });
  });
});

describe('redactErrorSecrets on long texts', () => {
  it('redacts a long message, its copy in the stack and in a parsed body, reading each once', () => {
    const key = 'sk-long-Zx8Qw4Er7Ty1Ui5Op9As3Df6';
    const text = `${'x'.repeat(3000)} ${key} ${'y'.repeat(3000)} ${encodeURIComponent(key)}`;
    const cause = Object.assign(new Error(text), { error: { message: text } });
    const error = new ProviderError({ provider: 'acme', message: text, cause });
    let longCalls = 0;
    const counted = (t: string) => {
      if (t.includes('x'.repeat(3000))) longCalls++;
      return t.split(key).join('[redacted]');
    };
    redactErrorSecrets(error, counted);
    for (const shown of [error.message, error.stack ?? '', cause.message, cause.stack ?? '', cause.error.message]) expect(shown).not.toContain(key);
    expect(error.stack).toContain('\n    at ');
    // The long text once: the stacks' copies of it and the body's reuse that.
    expect(longCalls).toBe(1);
  });
});
