// Regression tests for what the fuzzer (hostile-upstream.fuzz.test.ts) found: a backend that
// answers 200 with JSON and resets the connection while the body is read; a caller who aborts
// while a 5xx waits to be sent again.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectStream, ProviderError } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatGPT } from '../src/index.ts';
import { makeJwt } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

function tokens() {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus' };
  return { accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), idToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), refreshToken: 'rt_test_0123456789' };
}

describe('an abort while a failed request waits to be sent again', () => {
  it('rejects with the caller\'s reason (was: the timer\'s "AbortError: The operation was aborted")', async () => {
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url?.startsWith('/codex/models') === true) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] }));
          return;
        }
        // The backoff before the retry is 250 ms or more: the abort comes during it (or, on a slow machine, before; the reason is the same).
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}', () => setTimeout(() => controller.abort(reason), 20));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const chatgpt = createChatGPT({ auth: { tokens: tokens(), issuer: 'http://127.0.0.1:9' }, baseURL, logger: recordingLogger().logger, maxRetries: 3 });
    const error = await collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal })).catch((e: unknown) => e);
    expect(error).toBe(reason);
  });
});

describe('a Codex backend that resets while its answer is read', () => {
  it('fails with a typed error saying what came back (was: TypeError "terminated")', async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url?.startsWith('/codex/models') === true) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"error":null}', () => setImmediate(() => res.socket?.resetAndDestroy()));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus' };
    const tokens = { accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), idToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), refreshToken: 'rt_test_0123456789' };
    const chatgpt = createChatGPT({ auth: { tokens, issuer: 'http://127.0.0.1:9' }, baseURL, logger: recordingLogger().logger, maxRetries: 0 });
    const error = await collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'Hi' }] })).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error), String(error)).toBe(true);
    expect((error as ProviderError).code).toBe('not_event_stream');
    expect((error as Error).message).toContain('instead of an event stream ({"error":null})');
  });
});
