// The body of a non-streamed completion, read by the provider after the SDK made the call:
// slow, broken, cut, aborted or not JSON at all, from a real node:http server on 127.0.0.1.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError, StreamError } from '@toolwire/core';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { OpenAIChatModel } from '../src/openai-chat-model.ts';
import { completion } from './chat-wire.ts';
import { weatherTool } from './tools.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

async function serve(handler: RequestListener): Promise<string> {
  server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };
const chat = (baseURL: string) => createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 }).chat('gpt-4.1-mini');

describe('generate reads the completion body itself', () => {
  it('reads a body that arrives slowly, a few bytes at a time', async () => {
    const body = JSON.stringify(completion({ content: 'Hello there, slowly.' }));
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      let i = 0;
      const timer = setInterval(() => {
        if (i >= body.length) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(body.slice(i, (i += 9)));
      }, 1);
    });
    const response = await chat(baseURL).generate(request);
    expect(response.text).toBe('Hello there, slowly.');
    expect(response.finishReason).toBe('stop');
  });

  it('answers a 200 that is not JSON (a login page behind a proxy) with a ProviderError naming what came back', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Sign in</body></html>');
    });
    const error = await chat(baseURL).generate(request).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('text/html');
  });

  it('maps JSON that breaks off to the same StreamError as before', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"chatcmpl-1","choices":[{"index":0,');
    });
    const error = await chat(baseURL).generate(request).catch((e: unknown) => e);
    expect(StreamError.isInstance(error)).toBe(true);
  });

  it('fails, rather than hangs, when the connection is cut mid-body', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id":"chatcmpl-1",');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await chat(baseURL).generate(request).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
  });

  it('stops reading and rejects with the abort reason when the caller aborts mid-body', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const baseURL = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-1",');
      req.socket.on('close', () => upstreamClosed());
    });
    const controller = new AbortController();
    const pending = chat(baseURL).generate({ ...request, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the client left')), 50);
    await expect(pending).rejects.toThrow('the client left');
    await closed;
  });
});

describe('generate and the body it handed the SDK', () => {
  it('takes the conversation and the tool schemas back out of it once the call is over (the SDK keeps its request options until a full collection)', async () => {
    const baseURL = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion({ content: 'Done.' })));
    });
    const kept: { body?: unknown }[] = [];
    const sentBodies: string[] = [];
    // The SDK's own request options, as its `buildRequest` (a public method) receives them.
    class WatchedOpenAI extends OpenAI {
      override buildRequest(...args: Parameters<OpenAI['buildRequest']>): ReturnType<OpenAI['buildRequest']> {
        kept.push(args[0]);
        return super.buildRequest(...args);
      }
    }
    const client = new WatchedOpenAI({
      baseURL,
      apiKey: 'sk-test',
      maxRetries: 0,
      fetch: async (input, init) => {
        sentBodies.push(typeof init?.body === 'string' ? init.body : '');
        return fetch(input, init);
      },
    });
    const model = new OpenAIChatModel({ modelId: 'gpt-4.1-mini', context: { client: () => client, baseURL, isOpenAI: false } });
    const response = await model.generate({ messages: [{ role: 'user', content: 'A long conversation.' }], tools: [weatherTool] });
    expect(response.text).toBe('Done.');
    // What went on the wire had everything...
    const wire = JSON.parse(sentBodies[0] ?? '{}') as { messages: unknown[]; tools?: unknown[] };
    expect(wire.messages).toHaveLength(1);
    expect(wire.tools).toHaveLength(1);
    // ...and what the SDK still holds no longer reaches it.
    expect(kept).toHaveLength(1);
    const body = kept[0]?.body as { model: string; messages: unknown[]; tools?: unknown };
    expect(body.model).toBe('gpt-4.1-mini');
    expect(body.messages).toEqual([]);
    expect(body.tools).toBeUndefined();
  });
});
