import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { ProviderError } from '../errors.ts';
import { MAX_ERROR_TEXT_CHARS, redactErrorSecrets } from './redact-error-secrets.ts';

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

describe('redactErrorSecrets on megabytes from a broken or hostile upstream', () => {
  const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
  /** Near matches of the key in every spelling, base64-looking runs and escapes, for `chars`. */
  const hostile = (chars: number): string => {
    const unit = `${KEY.slice(0, 9)}# ${encodeURIComponent(KEY.slice(0, 9))}%2 \\u0073k-pro &#115;k-proj- ${Buffer.from(KEY.slice(0, 12)).toString('base64')}+ `;
    return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
  };
  /** An SDK-like error for a 16 MiB body: the status and the body as its message, the parsed body, a cause. */
  const sixteenMiBError = (): Error & { error: { message: string } } => {
    const text = `${KEY} ${hostile(16 * 1024 * 1024)} ${KEY}`;
    const body = { error: { message: text } };
    return Object.assign(new Error(`400 ${JSON.stringify(body)}`, { cause: new Error(text) }), body);
  };

  it('keeps the start of each text (64 Ki characters), redacted, and says how much was left out', () => {
    const error = sixteenMiBError();
    const cause = error.cause as Error;
    redactErrorSecrets(error, [KEY]);
    for (const text of [error.message, error.stack ?? '', cause.message, cause.stack ?? '', error.error.message]) {
      expect(text.length).toBeLessThan(MAX_ERROR_TEXT_CHARS + 2048);
      expect(text).not.toContain(KEY.slice(0, 10));
      expect(text).toMatch(/… \(\d+ more characters\)/);
    }
    expect(error.message.startsWith('400 {"error":{"message":"[redacted] sk-proj-A#')).toBe(true);
    expect(cause.stack).toContain('\n    at ');
  });

  it('does not hold the event loop: a ticker keeps ticking while failing requests bring 16 MiB bodies', async () => {
    const errors = Array.from({ length: 4 }, () => {
      const error = sixteenMiBError();
      // Another 16 MiB text further down the chain: more for the old code to read whole.
      (error.cause as Error).cause = new Error(`${hostile(16 * 1024 * 1024)} again`);
      return error;
    });
    // Stacks formatted and texts made flat up front, as an SDK and a logger would have done.
    let sum = 0;
    for (const error of errors) for (let e: unknown = error; e instanceof Error; e = e.cause) sum += (e.stack?.charCodeAt(9) ?? 0) + e.message.charCodeAt(9);
    expect(sum).toBeGreaterThan(0);
    let ticks = 0;
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      ticks++;
    }, 1);
    try {
      for (const error of errors) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        redactErrorSecrets(error, [KEY, 'x-gateway-secret-77']);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(0);
    // Redacting each whole took a second or more; now each costs what its 64 Ki-character starts cost.
    expect(longest).toBeLessThan(500);
  });

  it('gives up long texts past the reading budget of one error for a note of their length', () => {
    const text = hostile(200_000);
    const data = Array.from({ length: 40 }, (_, i) => `${i} ${text}`);
    const error = Object.assign(new Error('failed'), { data, code: `code ${KEY}` });
    redactErrorSecrets(error, [KEY]);
    expect(error.data[0]).toMatch(/^0 sk-proj-A#.*… \(\d+ more characters\)$/s);
    expect(error.data[39]).toBe(`[${text.length + 3} characters not shown]`);
    // Short texts are always read: a code stays.
    expect(error.code).toBe('code [redacted]');
  });
});

describe('redactErrorSecrets leaves nothing it did not read', () => {
  const KEY = 'sk-proj-abcdefghijklmnop1234567890';
  /** Everything a logger could print of `value`: inspected whole and as JSON. */
  const printed = (value: unknown): string => `${inspect(value, { depth: null, showHidden: true })} ${JSON.stringify(value)}`;

  it("redacts an AggregateError's errors and errors held in fields, not only the cause chain", () => {
    const inner = new Error(`refused ${KEY}`);
    const aggregate = new AggregateError([inner, new Error('ok')], 'all failed');
    const error = Object.assign(new Error('failed', { cause: aggregate }), { original: new Error(`401 ${KEY}`) });
    expect(redactErrorSecrets(error, [KEY])).toBe(error);
    expect(printed(error)).not.toContain(KEY);
    expect(inner.message).toBe('refused [redacted]');
  });

  it('replaces a parsed body deeper or longer than it reads with a note, never leaves it as it was', () => {
    let deep: Record<string, unknown> = { message: `bad key ${KEY}` };
    for (let i = 0; i < 12; i++) deep = { nested: deep };
    // An echo of the request: a long conversation first, the headers after it.
    const echo = { messages: Array.from({ length: 20_000 }, (_, i) => ({ role: 'user', content: `turn ${i}` })), headers: { authorization: `Bearer ${KEY}` } };
    const error = Object.assign(new Error('400'), { error: deep, echo });
    redactErrorSecrets(error, [KEY]);
    expect(printed(error)).not.toContain(KEY);
    // What holds more values than are read goes whole: the rest of it is not gone through one by one.
    expect(error.echo).toBe('[not shown]');
    expect(JSON.stringify(error.error)).toContain('"nested":"[not shown]"');
  });

  it('cuts a cause chain longer than it reads', () => {
    let error = new Error(`bottom ${KEY}`);
    for (let i = 0; i < 40; i++) error = new Error(`level ${i}`, { cause: error });
    redactErrorSecrets(error, [KEY]);
    expect(printed(error)).not.toContain(KEY);
  });

  it('redacts a cause that is a string or a plain object, and a thrown string', () => {
    const error = new Error('failed', { cause: `key ${KEY}` });
    const other = new Error('failed', { cause: { message: `key ${KEY}` } });
    redactErrorSecrets(error, [KEY]);
    redactErrorSecrets(other, [KEY]);
    expect(error.cause).toBe('key [redacted]');
    expect(other.cause).toEqual({ message: 'key [redacted]' });
    expect(redactErrorSecrets(`thrown ${KEY}`, [KEY])).toBe('thrown [redacted]');
  });

  it('gives a clean copy in place of a frozen error or body, keeping its class and marks', () => {
    const frozen = Object.freeze(new ProviderError({ provider: 'acme', message: `bad key ${KEY}`, status: 401 }));
    const clean = redactErrorSecrets(frozen, [KEY]);
    expect(clean).not.toBe(frozen);
    expect(ProviderError.isInstance(clean)).toBe(true);
    expect(clean).toBeInstanceOf(ProviderError);
    expect(clean.message).toBe('bad key [redacted]');
    expect(clean.status).toBe(401);
    expect(printed(clean)).not.toContain(KEY);

    const body = Object.freeze({ error: Object.freeze({ message: `bad key ${KEY}` }) });
    const holder = Object.assign(new Error('400'), { body });
    const cause = Object.freeze(new Error(`401 ${KEY}`));
    const outer = new Error('failed', { cause });
    redactErrorSecrets(holder, [KEY]);
    redactErrorSecrets(outer, [KEY]);
    expect(holder.body).toEqual({ error: { message: 'bad key [redacted]' } });
    expect(printed(outer)).not.toContain(KEY);
  });

  it("finds a long message's copy in the stack whose ends repeat elsewhere, or leaves no key either way", () => {
    for (const [before, after] of [[': '.repeat(700), ': '.repeat(700)], ['or: Error: '.repeat(200), 'x'.repeat(2000)]] as const) {
      const error = new Error(`${before}${KEY}${after}`);
      expect(error.stack).toContain(KEY);
      // A stack that holds the message twice, as a wrapper that appends its cause's stack does.
      const twice = new Error('x');
      Object.defineProperty(twice, 'message', { value: `${before}${KEY}${after}`, writable: true, configurable: true });
      Object.defineProperty(twice, 'stack', { value: `Error: ${before}${KEY}${after}\n${before}${KEY}${after}`, writable: true, configurable: true });
      redactErrorSecrets(error, [KEY]);
      redactErrorSecrets(twice, [KEY]);
      expect(`${error.stack ?? ''} ${twice.stack ?? ''}`).not.toContain(KEY.slice(5, 15));
    }
  });

  it('a stack that cannot be written, or a getter that throws, does not stop it or leave the key', () => {
    const error = new Error(`bad key ${KEY}`);
    Object.defineProperty(error, 'stack', { value: `Error: bad key ${KEY}\n    at somewhere`, configurable: false, writable: false });
    Object.defineProperty(error, 'broken', { get: () => { throw new Error('unreadable'); }, enumerable: true });
    const clean = redactErrorSecrets(error, [KEY]);
    expect(clean.stack).toBe('Error: bad key [redacted]\n    at somewhere');
    expect(clean.message).toBe('bad key [redacted]');
  });
});
