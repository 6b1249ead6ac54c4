// Secrets in error texts from hostile or broken servers: redacted in the whole text before
// anything is cut, and the text taken from a server is bounded (an 8 MB error message).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ProviderError } from '@toolwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createChatGPT, createChatGPTAuth } from '../src/index.ts';
import { startAuthServer } from './helpers/auth-server.ts';
import { startBackend } from './helpers/backend-server.ts';
import { makeAuthFile, makeJwt, makeTokenSet } from './helpers/jwt.ts';
import { makeTempDir } from './helpers/temp-dir.ts';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
const closers: (() => Promise<void>)[] = [];
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await temp.cleanup();
});

const EIGHT_MB = 8 * 1024 * 1024;

/** Prefixes (8+ characters) of `secret` found in `text`. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let length = 8; length <= secret.length; length++) if (text.includes(secret.slice(0, length))) found.push(secret.slice(0, length));
  return found;
}

/** An error body of `size` bytes with `secret` at `offset`. */
function bodyWith(secret: string, offset: number, size: number, json: boolean): string {
  if (json) {
    const head = '{"error":{"code":"server_error","message":"';
    const pad = 'x'.repeat(Math.max(0, offset - head.length));
    return `${head}${pad}${secret}${'y'.repeat(Math.max(0, size - head.length - pad.length - secret.length - 4))}"}}`;
  }
  return `${'x'.repeat(offset)}${secret}${'y'.repeat(Math.max(0, size - offset - secret.length))}`;
}

describe('refresh errors', () => {
  // The old cut (200), the message cut (300 after redaction), the read limit (64 KiB), the end.
  const offsets = [0, 190, 195, 290, 298, 64 * 1024 - 10, EIGHT_MB - 64];
  for (const json of [false, true]) {
    it(`never leak the refresh token from an 8 MB ${json ? 'JSON' : 'text'} error, wherever it sits`, async () => {
      for (const offset of offsets) {
        const auth = await startAuthServer({ refreshFailure: { status: 500, body: (token) => bodyWith(token, offset, EIGHT_MB, json) } });
        closers.push(auth.close);
        const tokens = makeTokenSet({ expiresIn: -30 });
        auth.adopt(tokens);
        const path = join(temp.dir, `${json}-${offset}`, 'auth.json');
        await mkdir(join(path, '..'));
        await writeFile(path, JSON.stringify(makeAuthFile(tokens)), { mode: 0o600 });
        const error = await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url }).getCredentials().catch((e: unknown) => e);
        expect(ProviderError.isInstance(error)).toBe(true);
        const message = (error as Error).message;
        expect({ offset, leaks: leaks(`${message}\n${JSON.stringify(error)}`, tokens.refresh_token) }).toEqual({ offset, leaks: [] });
        expect(message.length).toBeLessThan(1000);
        expect(message).toContain('HTTP 500');
      }
    });
  }

  it('redacts tokens the server echoes that this process never sent (JWT-shaped)', async () => {
    const stranger = makeJwt({ sub: 'someone-else', exp: 1 });
    const auth = await startAuthServer({ refreshFailure: { status: 503, body: () => `upstream said: ${stranger} (retry)` } });
    closers.push(auth.close);
    const tokens = makeTokenSet({ expiresIn: -30 });
    auth.adopt(tokens);
    const path = join(temp.dir, 'auth.json');
    await writeFile(path, JSON.stringify(makeAuthFile(tokens)), { mode: 0o600 });
    const error = await createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url }).getCredentials().catch((e: unknown) => e);
    expect((error as Error).message).toContain('upstream said: [redacted] (retry)');
  });
});

describe('backend errors', () => {
  it('never leak the access token from an 8 MB backend error, wherever it sits', async () => {
    for (const [offset, json] of [
      [290, false],
      [298, false],
      [64 * 1024 - 8, false],
      [300, true],
      [EIGHT_MB - 100, true],
    ] as const) {
      const tokens = makeTokenSet();
      const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] });
      closers.push(backend.close);
      const text = bodyWith(tokens.access_token, offset, EIGHT_MB, json);
      backend.reply({ status: 400, text, headers: { 'content-type': json ? 'application/json' : 'text/plain' } });
      const chatgpt = createChatGPT({
        auth: { tokens: { accessToken: tokens.access_token, idToken: tokens.id_token, refreshToken: tokens.refresh_token } },
        baseURL: backend.url,
        maxRetries: 0,
        logger: { warn: () => undefined },
      });
      const error = await chatgpt
        .chat('gpt-5.4')
        .generate({ messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(ProviderError.isInstance(error)).toBe(true);
      const message = (error as Error).message;
      expect({ offset, leaks: leaks(message, tokens.access_token) }).toEqual({ offset, leaks: [] });
      expect(message.length).toBeLessThan(2000);
    }
  });

  it('never leak the access token a backend or proxy echoes in another spelling: percent-encoded, JSON-escaped, in Basic, cut, upper case', async () => {
    const tokens = makeTokenSet();
    const token = tokens.access_token;
    const spellings = [
      `GET /codex/responses?access_token=${encodeURIComponent(token)}`,
      JSON.stringify({ detail: `bad bearer ${token.replaceAll('.', '\\u002e')}` }),
      `Authorization: Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
      `token ${token.slice(0, 40)}... is unknown`,
      `TOKEN ${token.toUpperCase()}`,
    ];
    const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] });
    closers.push(backend.close);
    const chatgpt = createChatGPT({
      auth: { tokens: { accessToken: token, idToken: tokens.id_token, refreshToken: tokens.refresh_token } },
      baseURL: backend.url,
      maxRetries: 0,
      logger: { warn: () => undefined },
    });
    for (const text of spellings) {
      backend.reply({ status: 400, text, headers: { 'content-type': 'text/plain' } });
      const error = await chatgpt
        .chat('gpt-5.4')
        .generate({ messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(ProviderError.isInstance(error)).toBe(true);
      const shown = `${(error as Error).message}\n${(error as Error).stack ?? ''}`;
      expect(shown).toContain('[redacted]');
      const pieces = [token, encodeURIComponent(token), Buffer.from(`user:${token}`).toString('base64'), token.toUpperCase()];
      expect({ text: text.slice(0, 40), leaks: pieces.flatMap((piece) => leaks(shown, piece.slice(12))) }).toEqual({ text: text.slice(0, 40), leaks: [] });
    }
  });

  it('never leak the access token a response.failed or error event echoes, in the message or the stack', async () => {
    const tokens = makeTokenSet();
    const stranger = makeJwt({ sub: 'someone-else', exp: 1 });
    const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] });
    closers.push(backend.close);
    const created = { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5.4' } };
    const failures = [
      { type: 'response.failed', response: { id: 'resp_1', status: 'failed', error: { code: 'server_error', message: `bad bearer ${tokens.access_token}` } } },
      { type: 'error', error: { code: 'server_error', message: `proxy saw ${tokens.access_token} and ${stranger}` } },
    ];
    const chatgpt = createChatGPT({
      auth: { tokens: { accessToken: tokens.access_token, idToken: tokens.id_token, refreshToken: tokens.refresh_token } },
      baseURL: backend.url,
      maxRetries: 0,
      logger: { warn: () => undefined },
    });
    for (const failure of failures) {
      backend.reply({ sse: [created, failure] });
      const events = [];
      for await (const event of chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'hi' }] })) events.push(event);
      const error = events.find((event) => event.type === 'error');
      expect(error?.type).toBe('error');
      const message = error?.type === 'error' ? error.error.message : '';
      expect(message).toContain('[redacted]');
      const stack = error?.type === 'error' ? (error.error.stack ?? '') : '';
      for (const text of [message, stack]) {
        expect({ type: failure.type, leaks: [...leaks(text, tokens.access_token), ...leaks(text, stranger)] }).toEqual({ type: failure.type, leaks: [] });
      }
    }
  });
});
