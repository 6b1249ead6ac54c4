import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';
import { startRedis } from './helpers/redis-server.ts';
import type { RedisProcess } from './helpers/redis-server.ts';

// A client that leaves while its request waits on the shared state (admission, turn
// restoring) is noticed when the answer would start: no model call runs for nobody, and
// the key's slot comes back. The state is a real redis-server, frozen while the client leaves.

const started = await startRedis();
if ('skip' in started) console.warn(`[early-disconnect.test] skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** Records each call and whether its signal was still live when it began. */
function recordingModel(calls: { live: boolean }[]): ChatModel {
  return {
    provider: 'test',
    modelId: 'recording',
    generate(request: ChatRequest): Promise<ChatResponse> {
      calls.push({ live: request.signal?.aborted !== true });
      return Promise.resolve({ text: 'Hi.', toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: 'Hi.' }, usage });
    },
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
      calls.push({ live: request.signal?.aborted !== true });
      await Promise.resolve();
      yield { type: 'text-delta', delta: 'Hi.' };
      yield { type: 'finish', finishReason: 'stop', usage };
    },
  };
}

describe.runIf(redis !== undefined)('a client that leaves while its request waits on Redis', () => {
  const server = redis as RedisProcess;
  const calls: { live: boolean }[] = [];
  let gateway: ToolwireServer;
  let baseURL: string;

  beforeAll(async () => {
    const up = await startGateway(recordingModel(calls), {
      keys: [{ id: 'one', keyHash: hashApiKey('sk-one'), maxConcurrentRequests: 1 }],
      state: { redis: { url: server.url, commandTimeoutMs: 10_000 } },
    });
    gateway = up.server;
    baseURL = up.baseURL;
  });
  afterAll(async () => {
    server.resume();
    await gateway.close();
    await server.stop();
  });

  const post = (stream: boolean, signal?: AbortSignal) =>
    fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-one', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/recording', messages: [{ role: 'user', content: 'Hi' }], stream }),
      signal,
    });

  for (const stream of [false, true]) {
    it(`runs no model call for it and frees the key's slot (${stream ? 'streaming' : 'non-streaming'})`, async () => {
      expect((await post(stream)).status).toBe(200); // the connection to Redis is up
      calls.length = 0;
      server.pause();
      const controller = new AbortController();
      const left = post(stream, controller.signal).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort();
      expect(await left).toBeInstanceOf(Error);
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.resume();
      // The key's only slot is free again: the next request gets through.
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = (await post(stream)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(200);
      // The left request's call either never ran or ran on a signal already aborted; only the last one ran live.
      expect(calls.filter((call) => call.live)).toHaveLength(1);
    });
  }
});
