// An Ollama (or something in its place) whose answer has fields of the wrong type: `content`
// a number, `tool_calls` an object, a `message` that is a string. Read through the real
// `ollama` client from a server on 127.0.0.1: the fields are left out, never passed on as
// text or iterated; the answer still finishes.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { ProviderError } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOllama } from '../src/index.ts';
import { closeServer, listenOnLoopback } from './loopback-server.ts';

const done = { model: 'm', created_at: '2026-01-01T00:00:00Z', done: true, done_reason: 'stop', prompt_eval_count: 2, eval_count: 1 };
const lines = [
  { model: 'm', message: { role: 'assistant', content: 42 }, done: false },
  { model: 'm', message: { role: 'assistant', content: '', tool_calls: { function: { name: 'f', arguments: {} } } }, done: false },
  { model: 'm', message: 'hi', done: false },
  { model: 'm', message: { role: 'assistant', content: 'Hello' }, done: false },
  { ...done, message: { role: 'assistant', content: '' } },
];

let server: Server;
let host: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
        return;
      }
      const body = JSON.parse(text) as { stream?: boolean; model: string };
      if (body.model === 'cut-json-error') {
        // The error body says it is JSON, and is cut short (or garbled) on the way.
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model runner has unexp');
        return;
      }
      if (body.model === 'other-api-error') {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'messages: bad thing', type: 'invalid_request_error' } }));
        return;
      }
      if (body.model === 'garbled-404') {
        res.writeHead(404, { 'content-type': 'text/html' }).end(Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xff]));
        return;
      }
      if (body.model === 'error-in-200' && body.stream === false) {
        // Ollama's error object with a 200: a model that failed after the headers went out, or a proxy passing it on.
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'llama runner process has terminated: signal: killed' }));
        return;
      }
      if (body.model === 'object-error-in-200' && body.stream === false) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'out of memory', code: 'oom' } }));
        return;
      }
      if (body.model === 'empty-502') {
        res.writeHead(502).end();
        return;
      }
      if (body.model === 'behind-a-proxy') {
        res.writeHead(502, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(1_000_000)}</html>`);
        return;
      }
      const stream = body.stream !== false;
      if (stream) res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(lines.map((line) => JSON.stringify(line) + '\n').join(''));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...done, message: { role: 'assistant', content: 7, tool_calls: { function: { name: 'f' } } } }));
    });
  });
  host = await listenOnLoopback(server);
});
afterAll(() => closeServer(server));

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [{ type: 'function' as const, name: 'f', inputSchema: { type: 'object' as const } }] };

describe('an Ollama answer with fields of the wrong type', () => {
  it('streams only the text that is text, and finishes', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const event of createOllama({ host }).chat('m').stream(request)) events.push(event);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []))).toEqual(['Hello']);
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 2, outputTokens: 1 } });
  });

  it('answers a non-streamed request with empty text and no calls', async () => {
    const response = await createOllama({ host }).chat('m').generate(request);
    expect(response.text).toBe('');
    expect(response.toolCalls).toEqual([]);
  });
});

describe('an error response that is not JSON', () => {
  it('gives an error whose message is the start of the body, and prints nothing to the console', async () => {
    const log = vi.spyOn(console, 'log');
    try {
      for (const stream of [false, true]) {
        const model = createOllama({ host }).chat('behind-a-proxy');
        const error = await (stream ? (async () => { for await (const event of model.stream(request)) expect(event.type).not.toBe('finish'); })() : model.generate(request)).catch((e: unknown) => e);
        expect((error as Error).message).toContain('<html>xxx');
        expect((error as Error).message.length).toBeLessThan(70 * 1024);
      }
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });
});

describe('an error response that says it is JSON and is not Ollama\'s error JSON', () => {
  it('gives an error whose message is the body, and prints nothing to the console', async () => {
    const log = vi.spyOn(console, 'log');
    try {
      for (const [model, text] of [
        ['cut-json-error', '{"error":"model runner has unexp'],
        ['other-api-error', 'messages: bad thing'],
      ] as const) {
        for (const stream of [false, true]) {
          const chat = createOllama({ host }).chat(model);
          const error = await (stream ? (async () => { for await (const event of chat.stream(request)) expect(event.type).not.toBe('finish'); })() : chat.generate(request)).catch((e: unknown) => e);
          expect((error as Error).message).toContain(text);
          expect((error as Error).message).not.toContain('[object Object]');
        }
      }
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });
});

describe('an error response whose body says nothing (garbled bytes, empty)', () => {
  it('gives an error that says which server answered what, and where to look', async () => {
    for (const [model, status, type] of [
      ['garbled-404', 404, ' (text/html)'],
      ['empty-502', 502, ''],
    ] as const) {
      const error = await createOllama({ host }).chat(model).generate(request).catch((e: unknown) => e);
      expect((error as Error).message).toContain(`The server at ${host} answered HTTP ${status}${type}`);
      expect((error as Error).message).toContain('check OLLAMA_HOST');
    }
  });
});

describe('a non-streamed answer that is an error object with a 200', () => {
  it('is an error saying what Ollama said, not an empty answer', async () => {
    for (const [model, said] of [
      ['error-in-200', 'llama runner process has terminated: signal: killed'],
      ['object-error-in-200', '{"message":"out of memory","code":"oom"}'],
    ] as const) {
      const error = await createOllama({ host }).chat(model).generate(request).then(
        () => expect.fail('the answer succeeded'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toContain(`Ollama at ${host} answered with an error instead of a message: ${said}`);
    }
  });
});
