// An upstream that sends a complete answer and then keeps the connection open: no `[DONE]`
// after its finish (and usage) chunk, no end of a whole JSON body, no end after Ollama's
// `done: true` chunk. Through the gateway, with the official `openai` client: the answer
// arrives complete within the providers' end grace (2 s), not as a 502 or an error frame
// after the upstream idle timeout, and the upstream connection is closed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ProvidersConfig, ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const usage = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };
const chunkBase = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const sse = (res: ServerResponse, chunk: unknown): boolean => res.write(`data: ${JSON.stringify(chunk)}\n\n`);

/** Each answer, then nothing: the body is never ended. */
function openAIUpstream(res: ServerResponse, body: Record<string, unknown>): void {
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(res, { ...chunkBase, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] });
    sse(res, { ...chunkBase, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    sse(res, { ...chunkBase, choices: [], usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }], usage }));
}

const ollamaDone = { model: 'm', created_at: '2026-01-01T00:00:00Z', done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 1 };

function ollamaUpstream(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void {
  if (req.url === '/api/show') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'], details: { family: 'llama' }, model_info: {} }));
    return;
  }
  if (body.stream !== false) {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write(JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'Hello' }, done: false }) + '\n');
    res.write(JSON.stringify({ ...ollamaDone, message: { role: 'assistant', content: '' } }) + '\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.write(JSON.stringify({ ...ollamaDone, message: { role: 'assistant', content: 'Hello' } }));
}

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

/** The upstream on 127.0.0.1 and a gateway in front of it; `closedChats` counts the chat connections the upstream saw close. */
async function start(kind: 'openai' | 'ollama'): Promise<{ client: OpenAI; model: string; closedChats: () => number }> {
  let closed = 0;
  const origin = await serve((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      if (req.url !== '/api/show') res.on('close', () => closed++);
      if (kind === 'openai') openAIUpstream(res, body);
      else ollamaUpstream(req, res, body);
    });
  });
  const providers: ProvidersConfig = kind === 'openai' ? { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' } } : { ollama: { host: origin } };
  // The default idle timeout is 10 min: far past the test's time limit.
  gateway = createServer({ logger: pino({ level: 'silent' }), providers, tools: { builtins: [] } });
  const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return { client: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0, timeout: 20_000 }), model: `${kind}/m`, closedChats: () => closed };
}

const until = async (check: () => boolean): Promise<boolean> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
};

for (const kind of ['openai', 'ollama'] as const) {
  describe(`an ${kind} upstream that keeps the connection open after a complete answer`, () => {
    it('answers a streamed request in full, usage and [DONE] included', async () => {
      const { client, model, closedChats } = await start(kind);
      const stream = await client.chat.completions.create({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }] });
      let text = '';
      let finish: string | null = null;
      let sawUsage: OpenAI.CompletionUsage | undefined;
      // The SDK's iteration ends only at `[DONE]`: an error frame would throw here.
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) sawUsage = chunk.usage;
      }
      expect(text).toBe('Hello');
      expect(finish).toBe('stop');
      expect(sawUsage).toMatchObject({ prompt_tokens: 5, completion_tokens: 1 });
      // The upstream's connection is released, not held until the idle timeout.
      expect(await until(() => closedChats() === 1)).toBe(true);
    }, 30_000);

    it('answers a non-streamed request in full', async () => {
      const { client, model, closedChats } = await start(kind);
      const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
      expect(completion.choices[0]?.message.content).toBe('Hello');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 1 });
      expect(await until(() => closedChats() === 1)).toBe(true);
    }, 30_000);
  });
}
