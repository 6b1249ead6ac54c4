// A server (or a proxy in front of Ollama) that sends a complete answer and then keeps the
// connection open: a stream's `done: true` chunk, or a whole non-streamed JSON body, with no
// end of the chunked body after it. The answer is taken, and the connection closed within
// `endGraceMs`, instead of waiting for an idle timeout.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatStreamEvent } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

const show = JSON.stringify({ capabilities: ['completion', 'tools'], details: { family: 'llama' }, model_info: {} });
const done = { model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 1 };

/** Serves `/api/show` normally and `/api/chat` with `chat`; `chatClosed` resolves when a chat connection closes. */
async function serve(chat: (body: Record<string, unknown>, res: ServerResponse) => void): Promise<{ host: string; chatClosed: Promise<void> }> {
  let onClosed: () => void = () => undefined;
  const chatClosed = new Promise<void>((resolve) => (onClosed = resolve));
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(show);
        return;
      }
      req.socket.once('close', onClosed);
      chat(JSON.parse(text) as Record<string, unknown>, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, chatClosed };
}

describe('a server that keeps the connection open after a complete answer', () => {
  it('ends a stream at its done chunk and closes the connection within the grace', async () => {
    const { host, chatClosed } = await serve((_body, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'Hello' }, done: false }) + '\n');
      res.write(JSON.stringify(done) + '\n');
      // …and the body never ends.
    });
    const model = createOllama({ host, endGraceMs: 300 }).chat('m');
    const events: ChatStreamEvent[] = [];
    for await (const event of model.stream({ messages: [{ role: 'user', content: 'Hi' }] })) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['text-delta', 'finish']);
    expect(events.at(-1)).toMatchObject({ finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } });
    await chatClosed;
  }, 15_000);

  it('takes a whole non-streamed answer whose body never ends, and closes the connection', async () => {
    const { host, chatClosed } = await serve((body, res) => {
      expect(body.stream).toBe(false);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.write(JSON.stringify({ ...done, message: { role: 'assistant', content: 'Hello' } }));
    });
    const model = createOllama({ host, endGraceMs: 300 }).chat('m');
    const response = await model.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(response).toMatchObject({ text: 'Hello', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } });
    await chatClosed;
  }, 15_000);

  it('never takes a done: false line as the non-streamed answer (a server that sends NDJSON for stream: false and pauses)', async () => {
    const { host } = await serve((_body, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.write(JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'The answer is' }, done: false }) + '\n');
      // The model thinks for longer than the grace, then the rest comes and the body ends.
      setTimeout(() => {
        res.write(JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: ' not 42.' }, done: false }) + '\n');
        res.end(JSON.stringify(done) + '\n');
      }, 900);
    });
    const model = createOllama({ host, endGraceMs: 300 }).chat('m');
    // The whole body is NDJSON, not one JSON value: an error, as before the end grace existed,
    // never the first fragment as a complete answer.
    await expect(model.generate({ messages: [{ role: 'user', content: 'Hi' }] })).rejects.toThrow(/ollama|JSON/i);
  }, 15_000);
});
