// An upstream that accepts the connection and never sends its response headers. The gateway
// stops it after `limits.upstreamIdleTimeoutMs` and answers at once: the provider SDKs retry a
// failed fetch (the openai SDK twice by default), which would hold the client for three
// timeouts, each as silent as the first. Statuses and dropped connections are still retried.
import type { IncomingMessage, ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const IDLE_MS = 500;

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

type Answer = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

/** An upstream (both wire formats) whose model calls `answer` handles, counted; a gateway in front of it; the official client with no retries of its own. */
async function start(answer: Answer): Promise<{ client: OpenAI; calls: string[] }> {
  const calls: string[] = [];
  const origin = await serve((req, res) => {
    if (req.url === '/api/show') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
      return;
    }
    calls.push(req.url ?? '');
    // The request body is read (and dropped) as a real server would.
    req.resume();
    answer(req, res, calls.length);
  });
  gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' }, ollama: { host: origin } },
    tools: { builtins: [] },
    limits: { upstreamIdleTimeoutMs: IDLE_MS },
  });
  const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return { client: new OpenAI({ apiKey: 'sk-gateway', baseURL, maxRetries: 0, timeout: 20_000 }), calls };
}

const silent: Answer = () => undefined;

const completionBody = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
});

/** What the gateway answered (the SDK's error), and how long it took. */
async function failure(call: () => Promise<unknown>): Promise<{ error: InstanceType<typeof OpenAI.APIError>; ms: number }> {
  const started = performance.now();
  const error = await call().then(
    () => expect.fail('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(error instanceof OpenAI.APIError)) throw error;
  return { error, ms: performance.now() - started };
}

function expectTimeoutAnswer(error: InstanceType<typeof OpenAI.APIError>): void {
  expect(error.status).toBe(503);
  expect(error.code).toBe('upstream_timeout');
  expect(error.message).toMatch(/answered nothing within 500 ms/);
  expect(error.message).not.toMatch(/cannot be reached|\.\./);
}

const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('an upstream that never sends its response headers', () => {
  it.each([false, true])('openai/ Chat Completions (stream: %s): one upstream request, answered 503 upstream_timeout after one idle timeout', async (stream) => {
    const { client, calls } = await start(silent);
    const { error, ms } = await failure(() => client.chat.completions.create({ model: 'openai/m', messages, stream }));
    expectTimeoutAnswer(error);
    expect(calls).toEqual(['/v1/chat/completions']);
    // The SDK's retries would take three timeouts and their backoff (over 2.6 s).
    expect(ms).toBeLessThan(3 * IDLE_MS);
  });

  it('openai/ through the Responses route: one upstream request', async () => {
    const { client, calls } = await start(silent);
    const { error, ms } = await failure(() => client.responses.create({ model: 'openai/m', input: 'Hi' }));
    expectTimeoutAnswer(error);
    expect(calls).toHaveLength(1);
    expect(ms).toBeLessThan(3 * IDLE_MS);
  });

  it('ollama/: one upstream request', async () => {
    const { client, calls } = await start(silent);
    const { error } = await failure(() => client.chat.completions.create({ model: 'ollama/llama3', messages }));
    expectTimeoutAnswer(error);
    expect(calls).toEqual(['/api/chat']);
  });
});

describe('upstream failures the gateway still retries (the openai SDK: twice)', () => {
  it.each([503, 429])('%i: sent again, and answered once the upstream is back', async (status) => {
    const { client, calls } = await start((_req, res, hit) => {
      // `retry-after-ms`: the SDK waits that long rather than its backoff (half a second and more).
      if (hit < 3) res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '10' }).end(JSON.stringify({ error: { message: 'busy' } }));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(completionBody);
    });
    const completion = await client.chat.completions.create({ model: 'openai/m', messages });
    expect(completion.choices[0]?.message.content).toBe('hi');
    expect(calls).toHaveLength(3);
  });

  it('503 three times: the client gets the failure after three upstream requests', async () => {
    const { client, calls } = await start((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after-ms': '10' }).end(JSON.stringify({ error: { message: 'busy' } }));
    });
    const { error } = await failure(() => client.chat.completions.create({ model: 'openai/m', messages }));
    expect(error.status).toBe(502);
    expect(calls).toHaveLength(3);
  });

  it('a connection the upstream resets before answering: sent again', async () => {
    const { client, calls } = await start((req, res, hit) => {
      if (hit === 1) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(completionBody);
    });
    const completion = await client.chat.completions.create({ model: 'openai/m', messages });
    expect(completion.choices[0]?.message.content).toBe('hi');
    expect(calls).toHaveLength(2);
  });
});
