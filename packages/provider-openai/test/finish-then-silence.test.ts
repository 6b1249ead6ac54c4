// A server that sends a complete answer and then keeps the connection open: no `[DONE]`
// after a stream's finish (and usage) chunk, no end of the chunked body after a whole
// completion. The answer is taken after `endGraceMs`, not lost at an idle timeout.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatStreamEvent } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

/** Serves `answer` for every request; resolves each time the server sees a connection of it close. */
async function serve(answer: (body: Record<string, unknown>, res: ServerResponse) => void): Promise<{ baseURL: string; closed: () => Promise<void> }> {
  const closes: (() => void)[] = [];
  let pending = 0;
  server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => answer(JSON.parse(text) as Record<string, unknown>, res));
    req.socket.once('close', () => {
      pending++;
      closes.shift()?.();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    closed: () => {
      if (pending > 0) {
        pending--;
        return Promise.resolve();
      }
      return new Promise((resolve) => closes.push(resolve));
    },
  };
}

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const sse = (res: ServerResponse, chunk: unknown): boolean => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
const usage = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}


/** An upstream that sends its answer with the finish chunk, then the usage chunk and `[DONE]` `delayMs` later. */
function finishThenUsageAfter(delayMs: number): Parameters<typeof serve>[0] {
  return (_body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(res, { ...base, choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: 'stop' }] });
    setTimeout(() => {
      sse(res, { ...base, choices: [], usage });
      res.end('data: [DONE]\n\n');
    }, delayMs);
  };
}
describe('a server that keeps the connection open after a complete answer', () => {
  it('ends a stream after its finish and usage chunks, with the usage, and closes the connection', async () => {
    const { baseURL, closed } = await serve((body, res) => {
      expect(body.stream_options).toEqual({ include_usage: true });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] });
      sse(res, { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      sse(res, { ...base, choices: [], usage });
      // …and then nothing: no [DONE], the connection stays open.
    });
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 300 }).chat('m');
    const events = await collect(model.stream({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(events.map((event) => event.type)).toEqual(['text-delta', 'finish']);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } });
    await closed();
  }, 15_000);

  it('ends a stream whose usage chunk never comes after the finish, without usage', async () => {
    const { baseURL, closed } = await serve((_body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { ...base, choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: 'stop' }] });
    });
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 300 }).chat('m');
    const events = await collect(model.stream({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(events).toEqual([{ type: 'text-delta', delta: 'Hello' }, expect.objectContaining({ type: 'finish', finishReason: 'stop' })]);
    expect(events.at(-1)).not.toHaveProperty('usage');
    await closed();
  }, 15_000);

  it('still reads a usage chunk and [DONE] that come within the grace', async () => {
    const { baseURL } = await serve(finishThenUsageAfter(50));
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 10_000 }).chat('m');
    const events = await collect(model.stream({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 5, outputTokens: 1 } });
  }, 15_000);

  it('takes a whole non-streamed completion whose body never ends, and closes the connection', async () => {
    const { baseURL, closed } = await serve((body, res) => {
      expect(body.stream).toBe(false);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }], usage }));
      // Chunked, and never ended.
    });
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 300 }).chat('m');
    const response = await model.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(response).toMatchObject({ text: 'Hello', finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 1 } });
    await closed();
  }, 15_000);

  it('keeps waiting on a stalled non-streamed body whose whole JSON is not a completion', async () => {
    const { baseURL } = await serve((_body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // One NDJSON-style line of something that is not a completion, then silence.
      res.write(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' }) + '\n');
    });
    const controller = new AbortController();
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 100 }).chat('m');
    const reading = model.generate({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal });
    const outcome = await Promise.race([reading.then(() => 'answered', () => 'failed'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 800))]);
    expect(outcome).toBe('waiting');
    controller.abort();
    await expect(reading).rejects.toThrow();
  }, 15_000);

  it('takes a whole error object from a stalled non-streamed body', async () => {
    const { baseURL } = await serve((_body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ error: { message: 'upstream overloaded', code: 503 } }));
    });
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 300 }).chat('m');
    await expect(model.generate({ messages: [{ role: 'user', content: 'Hi' }] })).rejects.toThrow('upstream overloaded');
  }, 15_000);

  it('keeps a usage chunk that arrived within the grace when the consumer reads on after it', async () => {
    const { baseURL } = await serve(finishThenUsageAfter(50));
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, endGraceMs: 300 }).chat('m');
    const events: ChatStreamEvent[] = [];
    for await (const event of model.stream({ messages: [{ role: 'user', content: 'Hi' }] })) {
      events.push(event);
      // The consumer is busy for longer than the grace (a server tool, a client under
      // backpressure): what the upstream sent in time is still read, not cancelled unread.
      if (event.type === 'text-delta') await new Promise((resolve) => setTimeout(resolve, 900));
    }
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 5, outputTokens: 1 } });
  }, 15_000);

  it('refuses an SSE answer to a non-streamed request at once, without waiting for a body that never ends', async () => {
    const { baseURL } = await serve((_body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { ...base, choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: 'stop' }] });
    });
    const model = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 }).chat('m');
    await expect(model.generate({ messages: [{ role: 'user', content: 'Hi' }] })).rejects.toThrow('a body of type text/event-stream');
  }, 15_000);
});
