import { Writable } from 'node:stream';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startRedis } from './helpers/redis-server.ts';
import type { RedisProcess } from './helpers/redis-server.ts';

// A mixed turn's answer ends only once its hidden half is written to the state (so that the
// client's next request, on any instance, finds it). Here Redis is frozen (SIGSTOP) while that
// write is under way: the answer must still end within the command timeout, and a client that
// leaves during the wait must still get its access line.
const started = await startRedis();
if ('skip' in started) console.warn(`[hidden-turn-wait.test] skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

const COMMAND_TIMEOUT_MS = 600;
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const calls = [
  { id: 'srv_1', name: 'get_current_time', arguments: {} },
  { id: 'cli_1', name: 'client_fn', arguments: { x: 1 } },
];

/** Calls a server and a client tool together; freezes Redis right before the run ends, when asked to. */
function mixedModel(freeze: () => void): ChatModel {
  const answered = (request: ChatRequest): boolean => request.messages.some((m) => m.role === 'tool');
  return {
    provider: 'test',
    modelId: 'm',
    generate(request: ChatRequest): Promise<ChatResponse> {
      if (answered(request)) return Promise.resolve({ text: 'done', toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: 'done' }, usage });
      freeze();
      return Promise.resolve({ text: '', toolCalls: calls, toolResults: [], finishReason: 'tool-calls', warnings: [], message: { role: 'assistant', content: '', toolCalls: calls }, usage });
    },
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
      await Promise.resolve();
      if (answered(request)) {
        yield { type: 'text-delta', delta: 'done' };
        yield { type: 'finish', finishReason: 'stop', usage };
        return;
      }
      for (const toolCall of calls) yield { type: 'tool-call', toolCall };
      freeze();
      yield { type: 'finish', finishReason: 'tool-calls', usage };
    },
  };
}

interface LogLine {
  msg?: string;
  res?: { statusCode?: number };
}

describe.runIf(redis !== undefined)('the answer to a mixed turn, with Redis frozen during the hidden-turn write', () => {
  const server = redis as RedisProcess;
  let freezeNext = false;
  const lines: LogLine[] = [];
  let gateway: ToolwireServer;
  let baseURL: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const model = mixedModel(() => {
      if (!freezeNext) return;
      freezeNext = false;
      server.pause();
    });
    gateway = createServer({
      logger: pino({ level: 'info' }, sink),
      keys: [{ id: 'one', keyHash: hashApiKey('sk-one'), maxConcurrentRequests: 1 }],
      state: { redis: { url: server.url, commandTimeoutMs: COMMAND_TIMEOUT_MS } },
      tools: { builtins: ['get_current_time'] },
      modelProviders: [{ name: 'test', chat: () => model, listModels: () => Promise.resolve(['m']) }],
    });
    baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    server.resume();
    await gateway.close();
    await server.stop();
  });

  const tools = [
    { type: 'function', function: { name: 'get_current_time' } },
    { type: 'function', function: { name: 'client_fn', parameters: { type: 'object' } } },
  ];
  const post = (stream: boolean, signal?: AbortSignal): Promise<Response> =>
    fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-one', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/m', messages: [{ role: 'user', content: 'hi' }], tools, stream }),
      ...(signal === undefined ? {} : { signal }),
    });
  const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  for (const stream of [false, true]) {
    it(`ends the answer within the command timeout, complete (${stream ? 'streamed' : 'not streamed'})`, async () => {
      freezeNext = true;
      const startedAt = Date.now();
      const response = await post(stream);
      const text = await response.text();
      const took = Date.now() - startedAt;
      server.resume();
      expect(response.status).toBe(200);
      expect(text).toContain('client_fn');
      if (stream) expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(took).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 50);
      expect(took).toBeLessThan(4 * COMMAND_TIMEOUT_MS + 1000);
      expect(lines.some((line) => line.msg === 'could not keep the hidden half of a mixed turn')).toBe(true);
      // Let the client reconnect to the resumed server before the next test.
      await pause(300);
    }, 20_000);

    it(`logs a 499 access line for a client that leaves during the write, and frees its slot (${stream ? 'streamed' : 'not streamed'})`, async () => {
      lines.length = 0;
      freezeNext = true;
      const controller = new AbortController();
      const request = post(stream, controller.signal);
      if (stream) await (await request).body?.getReader().read();
      await pause(200);
      controller.abort();
      await request.catch(() => undefined);
      await pause(50);
      server.resume();
      await pause(2 * COMMAND_TIMEOUT_MS);
      expect(lines.filter((line) => line.res?.statusCode === 499)).toHaveLength(1);
      expect(lines.some((line) => line.msg === 'request completed')).toBe(false);
      // The key allows one request at a time: the slot was given back.
      const next = await post(false);
      expect(next.status).toBe(200);
      await next.text();
    }, 20_000);
  }
});
