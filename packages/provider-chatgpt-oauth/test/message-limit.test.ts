// A Codex backend (or something in its place) whose one message never ends, against the
// provider used as a library: an SSE line without its line break, an event of endless `data:`
// lines, a model catalog without end. The stream fails with `UpstreamMessageTooLargeError`
// naming `maxMessageBytes` (not a dropped stream sent again), the backend is cut soon after
// the limit, and nothing of the call is left running; a catalog without end is cut and the
// bundled instructions are used.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectStream, UpstreamMessageTooLargeError } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatGPT } from '../src/index.ts';
import type { ChatGPTProviderOptions } from '../src/index.ts';
import { makeJwt } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';
import { pourEndless } from '../../../test/endless-upstream.ts';

const MIB = 1024 * 1024;
/** What a hostile backend writes if nobody stops it. */
const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

type Behaviour = 'endless-line' | 'endless-event' | 'hello';

interface Backend {
  baseURL: string;
  /** The bytes each endless answer wrote, once its connection closed. */
  written: number[];
  /** How many `POST /codex/responses` came in. */
  posts: number;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

const event = (data: Record<string, unknown>): string => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const hello = (): string =>
  event({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } }) +
  event({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello' }) +
  event({ type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } });

/** A backend whose `/codex/responses` answers with `behaviour`, and whose catalog is endless when `endlessCatalog`. */
async function backend(behaviour: Behaviour, options: { endlessCatalog?: boolean } = {}): Promise<Backend> {
  const state: Backend = { baseURL: '', written: [], posts: 0 };
  const record = (res: ServerResponse, bytes: number): void => {
    if (res.socket === null || res.socket.destroyed) state.written.push(bytes);
    else res.socket.once('close', () => state.written.push(bytes));
  };
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/codex/models') === true) {
        if (options.endlessCatalog === true) {
          res.writeHead(200, { 'content-type': 'application/json' });
          void pourEndless(res, '{"models":[{"slug":"gpt-5.4","base_instructions":"').then((bytes) => record(res, bytes));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] }));
        return;
      }
      state.posts++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (behaviour === 'hello') {
        res.end(hello());
        return;
      }
      const head = behaviour === 'endless-line' ? 'data: {"type":"response.output_text.delta","delta":"' : 'data: {"type":"response.output_text.delta",\n';
      void pourEndless(res, head).then((bytes) => record(res, bytes));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function provider(up: Backend, options: Partial<ChatGPTProviderOptions> = { maxMessageBytes: MIB }) {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus' };
  const tokens = { accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), idToken: makeJwt({ email: 'ada@example.com', 'https://api.openai.com/auth': auth, exp }), refreshToken: 'rt_test' };
  return createChatGPT({ auth: { tokens, issuer: 'http://127.0.0.1:9' }, baseURL: up.baseURL, logger: recordingLogger().logger, maxRetries: 0, ...options });
}

/** Sockets and timers alive in this process right now. */
function liveHandles(): { sockets: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return { sockets: info.filter((name) => name === 'TCPSocketWrap').length, timers: info.filter((name) => name === 'Timeout').length };
}

describe('a Codex backend message larger than maxMessageBytes (createChatGPT used directly)', () => {
  const cases = [
    { what: 'an SSE line that never ends', behaviour: 'endless-line' },
    { what: 'an event of endless data lines', behaviour: 'endless-event' },
  ] as const;
  for (const { what, behaviour } of cases) {
    it(`fails once with UpstreamMessageTooLargeError, not as a dropped stream, and cuts the backend: ${what}`, async () => {
      const up = await backend(behaviour);
      const chatgpt = provider(up);
      const before = liveHandles();
      const error = await collectStream(chatgpt.chat('gpt-5.4').stream(request)).catch((e: unknown) => e);
      expect(UpstreamMessageTooLargeError.isInstance(error), String(error)).toBe(true);
      expect((error as UpstreamMessageTooLargeError).limitBytes).toBe(MIB);
      expect((error as Error).message).toMatch(/more than 1 MiB in one stream event/u);
      expect((error as Error).message).toContain('maxMessageBytes');
      // Not sent again: a second try would meet the same message.
      expect(up.posts).toBe(1);
      await expect.poll(() => up.written.length, { timeout: 10_000 }).toBe(1);
      expect(up.written[0]).toBeLessThan(MIB + 16 * MIB);
      await expect
        .poll(
          () => {
            const now = liveHandles();
            // The catalog's socket stays in the pool (its two ends): only the stream's must go.
            return now.sockets <= before.sockets + 2 && now.timers <= before.timers;
          },
          { timeout: 5000 },
        )
        .toBe(true);
    });
  }

  it('caps at 16 MiB by default', async () => {
    const up = await backend('endless-line');
    const error = await collectStream(provider(up, {}).chat('gpt-5.4').stream(request)).catch((e: unknown) => e);
    expect(UpstreamMessageTooLargeError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/more than 16 MiB in one stream event/u);
    await expect.poll(() => up.written.length, { timeout: 10_000 }).toBe(1);
    expect(up.written[0]).toBeLessThan(32 * MIB);
  });

  it('cuts a model catalog without end and answers with the bundled instructions', async () => {
    const up = await backend('hello', { endlessCatalog: true });
    const response = await collectStream(provider(up).chat('gpt-5.4').stream(request));
    expect(response.text).toBe('Hello');
    await expect.poll(() => up.written.length, { timeout: 10_000 }).toBe(1);
    expect(up.written[0]).toBeLessThan(MIB + 16 * MIB);
  });

  it('refuses a maxMessageBytes that is not a whole number of bytes', () => {
    for (const bad of [-1, Number.NaN, 1.5]) {
      expect(() => createChatGPT({ auth: { tokens: { accessToken: 'a', refreshToken: 'r', idToken: 'i' } }, maxMessageBytes: bad })).toThrow(/maxMessageBytes must be/u);
    }
  });
});
