import { createServer } from 'node:http';
import type { Server } from 'node:http';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as createGateway } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';

// An Ollama that sends part of an NDJSON answer, then its connection breaks (a crash, an
// out-of-memory kill): the client must hear that the answer was cut, not "start ollama serve".
let ollama: Server;
let gateway: ToolwireServer;
let openai: OpenAI;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  ollama = createServer((req, res) => {
    void (async () => {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      if (req.url === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ capabilities: ['completion'], details: {}, model_info: {} }));
        return;
      }
      const body = JSON.parse(text || '{}') as { model?: string; stream?: boolean };
      const line = (content: string, done = false) =>
        `${JSON.stringify({ model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content }, done, ...(done ? { done_reason: 'stop', prompt_eval_count: 3, eval_count: 2 } : {}) })}\n`;
      if (body.stream === false && body.model !== 'healthy') {
        // Ollama answers a non-streamed call only when done: a crash before that is a reset.
        await sleep(30);
        req.socket.destroy();
        return;
      }
      if (body.stream === false) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(line('The answer is 42.', true));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const piece of ['The answer', ' is']) {
        res.write(line(piece));
        await sleep(30);
      }
      if (body.model === 'healthy') {
        res.end(line(' 42.', true));
        return;
      }
      res.socket?.destroy();
    })();
  });
  await new Promise<void>((resolve) => ollama.listen(0, '127.0.0.1', resolve));
  const address = ollama.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  gateway = createGateway({ logger: pino({ level: 'silent' }), providers: { ollama: { host: `http://127.0.0.1:${address.port}` } } });
  openai = new OpenAI({ apiKey: 'unused', baseURL: await gateway.listen({ port: 0 }), maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  ollama.closeAllConnections();
  await new Promise((resolve) => ollama.close(resolve));
});

describe('Ollama dropping its connection mid-answer', () => {
  it('ends the stream with an error frame saying the connection was lost during the answer', async () => {
    const stream = await openai.chat.completions.create({ model: 'ollama/dropping', messages: [{ role: 'user', content: 'x' }], stream: true });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(text).toBe('The answer is');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('was lost during the answer');
    expect((failure as Error).message).not.toContain('ollama serve');
  });

  it('answers a non-streamed request with an envelope that says the same, and keeps serving', async () => {
    const failure = await openai.chat.completions.create({ model: 'ollama/dropping', messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('was lost during the answer');
    expect((failure as Error).message).not.toContain('ollama serve');
    const ok = await openai.chat.completions.create({ model: 'ollama/healthy', messages: [{ role: 'user', content: 'x' }] });
    expect(ok.choices[0]?.message.content).toBe('The answer is 42.');
  });
});
