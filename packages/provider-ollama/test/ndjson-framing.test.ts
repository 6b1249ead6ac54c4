// Streamed /api/chat bodies at their worst, from a raw server on 127.0.0.1: a damaged line
// carrying a tool call, a line past the bound, a long line in many small writes.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { collectStream, StreamError, UpstreamMessageTooLargeError } from '@toolwire/core';
import type { FunctionToolSpec } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createOllama } from '../src/index.ts';

const tool: FunctionToolSpec = { type: 'function', name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };
const request = { messages: [{ role: 'user' as const, content: 'weather?' }], tools: [tool] };

const line = (message: Record<string, unknown>, done = false): string =>
  `${JSON.stringify({ model: 'm', created_at: '2026-11-24T10:00:00Z', message: { role: 'assistant', content: '', ...message }, done, ...(done ? { done_reason: 'stop' } : {}) })}\n`;

/** The body the next /api/chat gets, written in pieces of `chunkSize` bytes. */
let next: { body: string; chunkSize: number } = { body: '', chunkSize: 1 << 16 };
let server: Server;
let host: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const bytes = Buffer.from(next.body);
      const { chunkSize } = next;
      let offset = 0;
      const write = (): void => {
        while (offset < bytes.length) {
          const piece = bytes.subarray(offset, offset + chunkSize);
          offset += piece.length;
          if (!res.write(piece)) {
            res.once('drain', write);
            return;
          }
        }
        res.end();
      };
      write();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('a streamed Ollama answer', () => {
  it('fails with a retryable StreamError, printing nothing, when a line carrying a tool call is damaged', async () => {
    const damaged = line({ tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }).slice(0, 90);
    next = { body: `${line({ content: 'Let me check. ' })}${damaged}\n${line({}, true)}`, chunkSize: 1 << 16 };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const error = await collectStream(createOllama({ host }).chat('m').stream(request)).catch((e: unknown) => e);
      expect(StreamError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ retryable: true });
      expect((error as Error).message).toMatch(/sent a line of its streamed answer that is not JSON \("\{\\"model\\".*"\), so part of the answer is lost\. Retry/);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('fails with UpstreamMessageTooLargeError for a line of more than 16 MiB instead of buffering it', async () => {
    next = { body: `${line({ content: 'x'.repeat(17 * 1024 * 1024) })}${line({}, true)}`, chunkSize: 1 << 16 };
    const error = await collectStream(createOllama({ host }).chat('m').stream(request)).catch((e: unknown) => e);
    expect(UpstreamMessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ limitBytes: 16 * 1024 * 1024, part: 'line' });
    expect((error as Error).message).toMatch(/sent more than 16 MiB in one line of its stream;.*raise the maxMessageBytes option of createOllama\./su);
  });

  it('counts a line full of CRs as one line (the client splits at LF only), and fails it past the limit', async () => {
    // Each write ends in a CR: a limit that took CR for a line end counted none of them whole.
    const cut = `{"model":"m","message":{"role":"assistant","content":"${'x'.repeat(1000)}\r`;
    next = { body: `${cut}${`${'x'.repeat(1000)}\r`.repeat(2100)}"},"done":false}\n${line({}, true)}`, chunkSize: 1001 };
    const error = await collectStream(createOllama({ host, maxMessageBytes: 1024 * 1024 }).chat('m').stream(request)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'UpstreamMessageTooLargeError', limitBytes: 1024 * 1024, part: 'line' });
  });

  it('takes its line limit from maxMessageBytes (0: none)', async () => {
    const content = 'x'.repeat(1024 * 1024);
    next = { body: `${line({ content })}${line({}, true)}`, chunkSize: 1 << 16 };
    const error = await collectStream(createOllama({ host, maxMessageBytes: 1024 * 1024 }).chat('m').stream(request)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'UpstreamMessageTooLargeError', limitBytes: 1024 * 1024, part: 'line' });
    expect((await collectStream(createOllama({ host, maxMessageBytes: 0 }).chat('m').stream(request))).text).toBe(content);
    expect((await collectStream(createOllama({ host, maxMessageBytes: 2 * 1024 * 1024 }).chat('m').stream(request))).text).toBe(content);
    expect(() => createOllama({ host, maxMessageBytes: -1 })).toThrow(/maxMessageBytes must be a whole number of bytes/u);
  });

  it('reads a long line written in many small pieces, and a last line without its newline', async () => {
    const content = 'é'.repeat(1024 * 1024);
    const last = line({}, true).trimEnd();
    next = { body: `${line({ content })}${line({ tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] })}${last}`, chunkSize: 4096 };
    const response = await collectStream(createOllama({ host }).chat('m').stream(request));
    expect(response.text).toBe(content);
    expect(response.toolCalls.map((call) => [call.name, call.arguments])).toEqual([['get_weather', { city: 'Oslo' }]]);
  });
});
