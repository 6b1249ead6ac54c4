// Regression test for what the fuzzer (hostile-upstream.fuzz.test.ts) found: something in
// front of Ollama (a proxy holding an API key) that echoes the bearer token it was sent.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectStream, ProviderError, StreamError } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { closeServer, listenOnLoopback } from './loopback-server.ts';

const TOKEN = 'ollama-fuzz-token-0123456789SECRET';
let server: Server;
let host: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const echoed = `<p>Bad token ${(req.headers.authorization ?? '').replace('Bearer ', '')}</p>`;
      if (req.url === '/api/show') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
      else if (req.url === '/api/tags') res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `token ${String(req.headers.authorization)} refused` }));
      else res.writeHead(201, { 'content-type': 'text/html' }).end(echoed);
    });
  });
  host = await listenOnLoopback(server);
});
afterAll(() => closeServer(server));

const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('an upstream that echoes the bearer token', () => {
  it('redacts it from a stream error (was: the token inside "…not JSON (\\"<p>Bad token …</p>\\")")', async () => {
    const ollama = createOllama({ host, headers: { Authorization: `Bearer ${TOKEN}` } });
    const error = await collectStream(ollama.chat('m').stream(request)).catch((e: unknown) => e);
    expect(StreamError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('<p>Bad token [redacted]</p>');
    for (let current: unknown = error; current instanceof Error; current = current.cause) expect(`${current.message}${current.stack ?? ''}`).not.toContain(TOKEN);
  });

  it('redacts it from an HTTP error, the scheme included', async () => {
    const ollama = createOllama({ host, headers: { authorization: `Bearer ${TOKEN}` } });
    const error = await ollama.listModels().catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('token [redacted] refused');
  });
});

describe('an Ollama error without a message', () => {
  it('says what happened (was: a StreamError whose message is "")', async () => {
    const blank = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/api/show') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion'] }));
        else res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end('{"error":[[]]}\n');
      });
    });
    await new Promise<void>((resolve) => blank.listen(0, '127.0.0.1', resolve));
    try {
      const ollama = createOllama({ host: `http://127.0.0.1:${(blank.address() as AddressInfo).port}` });
      const error = await collectStream(ollama.chat('m').stream(request)).catch((e: unknown) => e);
      expect(StreamError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/^Ollama at http:\/\/127\.0\.0\.1:\d+ reported an error .*\. Retry the request/u);
    } finally {
      blank.closeAllConnections();
      await new Promise<void>((resolve) => blank.close(() => resolve()));
    }
  });
});

describe('an /api/show answer whose connection never ends', () => {
  it('is taken once its JSON is whole, and an abort frees the caller and the lookup (was: every later call to the model hung)', async () => {
    let shows = 0;
    const held = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/api/show') {
          shows++;
          // The first answer never even completes its JSON; later ones complete it and hold the connection.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(shows === 1 ? '{"capabilities":' : '{"capabilities":["completion","tools"]}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end('{"model":"m","message":{"role":"assistant","content":"Hi"},"done":true,"done_reason":"stop"}\n');
      });
    });
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    try {
      const ollama = createOllama({ host: `http://127.0.0.1:${(held.address() as AddressInfo).port}`, endGraceMs: 50 });
      const withTools = { ...request, tools: [{ type: 'function' as const, name: 'f', inputSchema: { type: 'object' as const } }] };
      const controller = new AbortController();
      const reason = new Error('gave up');
      const first = collectStream(ollama.chat('held').stream({ ...withTools, signal: controller.signal })).catch((e: unknown) => e);
      await expect.poll(() => shows).toBe(1);
      controller.abort(reason);
      expect(await first).toBe(reason);
      // The abandoned lookup is not kept: the next call asks again, and its whole answer is taken.
      const second = await collectStream(ollama.chat('held').stream(withTools));
      expect(second.text).toBe('Hi');
      expect(shows).toBe(2);
    } finally {
      held.closeAllConnections();
      await new Promise<void>((resolve) => held.close(() => resolve()));
    }
  });
});

describe('an /api/show answer that is not an object', () => {
  it('counts as a server that does not list capabilities (was: TypeError reading "capabilities" of null)', async () => {
    const odd = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/api/show') res.writeHead(200, { 'content-type': 'application/json' }).end('null');
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"model":"m","message":{"role":"assistant","content":"Hi"},"done":true,"done_reason":"stop"}');
      });
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      const ollama = createOllama({ host: `http://127.0.0.1:${(odd.address() as AddressInfo).port}` });
      const response = await ollama.chat('odd').generate({ ...request, tools: [{ type: 'function' as const, name: 'f', inputSchema: { type: 'object' as const } }] });
      expect(response.text).toBe('Hi');
    } finally {
      odd.closeAllConnections();
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });
});
