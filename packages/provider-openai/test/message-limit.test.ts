// An upstream whose one message never ends, against the provider used as a library (no
// gateway in front): an SSE line without its line break, an SSE event of endless `data:`
// lines without its blank line, a JSON body without end, an error page without end. Every
// reader (the SDK's line splitter, `JSON.parse`) holds a message whole before it can use it,
// so without a bound the process would hold all of it. Each call fails with
// `UpstreamMessageTooLargeError` naming `maxMessageBytes`, the upstream is cut soon after the
// limit (it stops being read), and nothing of the call is left running.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { collectStream, ProviderError, UpstreamMessageTooLargeError } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import type { OpenAIProviderOptions } from '../src/index.ts';
import { pourEndless } from '../../../test/endless-upstream.ts';

const MIB = 1024 * 1024;
/** What a hostile upstream writes if nobody stops it. */
const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

type Behaviour = 'endless-line' | 'endless-event' | 'endless-json' | 'endless-error' | 'large-event' | 'hello' | 'gzip-hello' | 'gzip-bomb';

interface Upstream {
  baseURL: string;
  /** The bytes written by each answer, once its connection closed. */
  written: number[];
  /** How many requests came in. */
  requests: number;
}

let server: Server | undefined;
async function closeServer(): Promise<void> {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
}
afterEach(closeServer);

const chunk = (content: string, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

async function answer(res: ServerResponse, behaviour: Behaviour, responses: boolean): Promise<number> {
  switch (behaviour) {
    case 'endless-line':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return pourEndless(res, 'data: {"pad":"');
    case 'endless-event':
      // Lines end, the event never does: every `data:` line is joined into one event.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return pourEndless(res, 'data: {"pad":"\n');
    case 'endless-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      return pourEndless(res, '{"pad":"');
    case 'endless-error':
      res.writeHead(500, { 'content-type': 'text/html' });
      return pourEndless(res, '<html><body>');
    case 'large-event':
      // 900 KiB in one event: under a 1 MiB limit.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk('z'.repeat(900 * 1024)) + chunk('', 'stop') + 'data: [DONE]\n\n');
      return 0;
    case 'gzip-hello':
    case 'gzip-bomb': {
      // Compressed although nothing asked for it (a proxy's doing): 4 MiB of text is a few KiB of gzip.
      const content = behaviour === 'gzip-hello' ? 'Hello' : 'z'.repeat(4 * MIB);
      const body = JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(body));
      return 0;
    }
    case 'hello':
      res.writeHead(200, { 'content-type': 'application/json' });
      if (responses) {
        res.end(JSON.stringify({ id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'm', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [] }] }] }));
      } else {
        res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }] }));
      }
      return 0;
  }
}

/** An upstream that answers every request with `behaviour`. */
async function upstream(behaviour: Behaviour): Promise<Upstream> {
  const state: Upstream = { baseURL: '', written: [], requests: 0 };
  server = createServer((req, res) => {
    state.requests++;
    req.resume();
    req.on('end', () => {
      void answer(res, behaviour, req.url?.includes('/responses') === true).then((bytes) => {
        if (bytes === 0) return;
        if (res.socket === null || res.socket.destroyed) state.written.push(bytes);
        else res.socket.once('close', () => state.written.push(bytes));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

const provider = (up: Upstream, options: OpenAIProviderOptions = {}) => createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', maxRetries: 0, maxMessageBytes: MIB, ...options });

/** Sockets and timers alive in this process right now. */
function liveHandles(): { sockets: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return { sockets: info.filter((name) => name === 'TCPSocketWrap').length, timers: info.filter((name) => name === 'Timeout').length };
}

/** Whether `run` fails with the limit's error, the upstream was cut, and nothing of the call is left. */
async function expectCut(up: Upstream, run: () => Promise<unknown>, what: RegExp, limitBytes = MIB): Promise<void> {
  const before = liveHandles();
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(UpstreamMessageTooLargeError.isInstance(error), String(error)).toBe(true);
  const tooLarge = error as UpstreamMessageTooLargeError;
  expect(tooLarge.limitBytes).toBe(limitBytes);
  expect(tooLarge.message).toMatch(what);
  expect(tooLarge.message).toContain('maxMessageBytes');
  // The upstream's connection was closed, and it was not read on: far less than it meant to write got out.
  await expect.poll(() => up.written.length, { timeout: 10_000 }).toBe(1);
  expect(up.written[0]).toBeLessThan(limitBytes + 16 * MIB);
  expect(up.requests).toBe(1);
  // No socket and no timer of the call is left: the process could exit.
  await expect
    .poll(() => {
      const now = liveHandles();
      return now.sockets <= before.sockets && now.timers <= before.timers;
    }, { timeout: 5000 })
    .toBe(true);
}

describe('an upstream message larger than maxMessageBytes (createOpenAI used directly)', () => {
  const cases: { what: string; behaviour: Behaviour; call: (model: (id: string) => ChatModel, api: 'chat' | 'responses') => Promise<unknown>; api: 'chat' | 'responses'; message: RegExp }[] = [
    { what: 'Chat Completions stream: an SSE line that never ends', behaviour: 'endless-line', api: 'chat', call: (m) => collectStream(m('m').stream(request)), message: /more than 1 MiB in one stream event/u },
    { what: 'Chat Completions stream: an event of endless data lines', behaviour: 'endless-event', api: 'chat', call: (m) => collectStream(m('m').stream(request)), message: /more than 1 MiB in one stream event/u },
    { what: 'Chat Completions: a JSON body without end', behaviour: 'endless-json', api: 'chat', call: (m) => m('m').generate(request), message: /a response body larger than 1 MiB/u },
    { what: 'Responses stream: an SSE line that never ends', behaviour: 'endless-line', api: 'responses', call: (m) => collectStream(m('m').stream(request)), message: /more than 1 MiB in one stream event/u },
    { what: 'Responses stream: an event of endless data lines', behaviour: 'endless-event', api: 'responses', call: (m) => collectStream(m('m').stream(request)), message: /more than 1 MiB in one stream event/u },
    { what: 'Responses: a JSON body without end', behaviour: 'endless-json', api: 'responses', call: (m) => m('m').generate(request), message: /a response body larger than 1 MiB/u },
  ];
  for (const { what, behaviour, api, call, message } of cases) {
    it(`fails with UpstreamMessageTooLargeError and cuts the upstream: ${what}`, async () => {
      const up = await upstream(behaviour);
      const openai = provider(up);
      await expectCut(up, () => call((id) => (api === 'chat' ? openai.chat(id) : openai.responses(id)), api), message);
    });
  }

  it('bounds the model list too', async () => {
    const up = await upstream('endless-json');
    await expectCut(up, () => provider(up).listModels(), /a response body larger than 1 MiB/u);
  });

  it('caps at 16 MiB by default', async () => {
    const up = await upstream('endless-line');
    const openai = createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    await expectCut(up, () => collectStream(openai.chat('m').stream(request)), /more than 16 MiB in one stream event/u, 16 * MIB);
  });

  it('reads an error page without end only up to the limit, and still reports the status', async () => {
    const up = await upstream('endless-error');
    const error = await provider(up).chat('m').generate(request).catch((e: unknown) => e);
    // The SDK reads an error's body for its message: that read is cut, the error is still the 500's.
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).status).toBe(500);
    await expect.poll(() => up.written.length, { timeout: 10_000 }).toBe(1);
    expect(up.written[0]).toBeLessThan(MIB + 16 * MIB);
  });

  it('lets a message under the limit through whole', async () => {
    const up = await upstream('large-event');
    const response = await collectStream(provider(up).chat('m').stream(request));
    expect(response.text).toHaveLength(900 * 1024);
  });

  it('takes any size with maxMessageBytes: 0', async () => {
    const up = await upstream('large-event');
    const response = await collectStream(provider(up, { maxMessageBytes: 0 }).chat('m').stream(request));
    expect(response.text).toHaveLength(900 * 1024);
    const small = await collectStream(provider(up, { maxMessageBytes: 1000 }).chat('m').stream(request)).catch((e: unknown) => e);
    expect(UpstreamMessageTooLargeError.isInstance(small)).toBe(true);
    expect((small as Error).message).toMatch(/more than 1000 bytes in one stream event/u);
  });

  it('refuses a maxMessageBytes that is not a whole number of bytes', () => {
    for (const bad of [-1, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
      expect(() => createOpenAI({ apiKey: 'sk-test', maxMessageBytes: bad })).toThrow(/maxMessageBytes must be/u);
    }
  });

  it("reads a body compressed unasked (Node's fetch decodes it) and counts it decoded", async () => {
    expect((await provider(await upstream('gzip-hello')).chat('m').generate(request)).text).toBe('Hello');
    await closeServer();
    const error = await provider(await upstream('gzip-bomb')).chat('m').generate(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'UpstreamMessageTooLargeError', part: 'body', limitBytes: MIB });
  });

  it('leaves nothing that keeps a process alive: one that met the limit exits on its own', async () => {
    const up = await upstream('endless-line');
    // A separate Node process (the one running these tests), with no process.exit: it ends only when nothing is left running.
    const script = [
      `const { createOpenAI } = await import(${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)});`,
      `const { collectStream } = await import('@toolwire/core');`,
      `const openai = createOpenAI({ baseURL: ${JSON.stringify(up.baseURL)}, apiKey: 'sk-test', maxMessageBytes: ${MIB} });`,
      `const error = await collectStream(openai.chat('m').stream({ messages: [{ role: 'user', content: 'Hi' }] })).catch((e) => e);`,
      'console.log(error.name);',
    ].join('\n');
    // Killed after 15 s if something kept it alive: `exit` then reports the signal.
    const exit = await new Promise<{ failure: Error | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--conditions=@toolwire/source', '--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url), timeout: 15_000 }, (failure, stdout) => resolve({ failure, stdout }));
    });
    expect(exit.failure).toBeNull();
    expect(exit.stdout.trim()).toBe('UpstreamMessageTooLargeError');
  });

  it('serves the next request on the same provider after a cut', async () => {
    const up = await upstream('hello');
    const openai = provider(up);
    expect((await openai.chat('m').generate(request)).text).toBe('Hello');
    expect((await openai.responses('m').generate(request)).text).toBe('Hello');
  });
});
