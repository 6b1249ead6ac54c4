// The body of a non-streamed completion, read by the provider after the SDK made the call:
// slow, broken, cut, aborted or not JSON at all, from a real node:http server on 127.0.0.1.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError, StreamError } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { completion } from './chat-wire.ts';

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
