import type { ChatModel, ChatRequest, ChatStreamEvent } from '@toolwire/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

// A key with one concurrency slot holds it for exactly as long as its request is answered:
// the whole stream, not only its start; and gets it back however the answer ends.

/** Answers every call with the same text (the router keeps one model per id). */
function helloModel(): ChatModel {
  const usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
  return {
    provider: 'test',
    modelId: 'scripted',
    generate: () => Promise.resolve({ text: 'Hello there.', toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: 'Hello there.' }, usage }),
    async *stream(): AsyncGenerator<ChatStreamEvent> {
      await Promise.resolve();
      yield { type: 'text-delta', delta: 'Hello ' };
      yield { type: 'text-delta', delta: 'there.' };
      yield { type: 'finish', finishReason: 'stop', usage };
    },
  };
}

/** Streams one delta, then nothing until the request is aborted (a long answer the client leaves). */
function hangingModel(): ChatModel {
  return {
    provider: 'test',
    modelId: 'hanging',
    generate: () => Promise.reject(new Error('stream only')),
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
      yield { type: 'text-delta', delta: 'Once upon a time' };
      await new Promise<void>((resolve) => {
        if (request.signal?.aborted === true) resolve();
        else request.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      throw request.signal?.reason ?? new Error('aborted');
    },
  };
}

/** Fails before any event: the client gets an HTTP error, not a stream. */
function failingModel(): ChatModel {
  return {
    provider: 'test',
    modelId: 'failing',
    generate: () => Promise.reject(new Error('upstream down')),
    // eslint-disable-next-line require-yield -- fails before its first event
    async *stream(): AsyncGenerator<ChatStreamEvent> {
      throw new Error('upstream down');
    },
  };
}

let server: ToolwireServer;
let client: OpenAI;

beforeAll(async () => {
  const started = await startGateway(
    (id) => {
      if (id === 'hanging') return hangingModel();
      if (id === 'failing') return failingModel();
      return helloModel();
    },
    { keys: [{ id: 'one', keyHash: hashApiKey('sk-one'), maxConcurrentRequests: 1 }] },
  );
  server = started.server;
  client = new OpenAI({ apiKey: 'sk-one', baseURL: started.baseURL, maxRetries: 0 });
});
afterAll(() => server.close());

const messages = [{ role: 'user' as const, content: 'Hi' }];

/** A streamed answer read to its end: its text. */
async function streamed(model = 'test/scripted'): Promise<string> {
  let text = '';
  for await (const chunk of await client.chat.completions.create({ model, messages, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

/** Whether the key's slot is free: a request gets through (retried for a moment, the release follows the response's end). */
async function slotFree(): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await client.chat.completions.create({ model: 'test/scripted', messages }).catch((error: unknown) => error);
    if (!(answer instanceof OpenAI.RateLimitError)) return !(answer instanceof Error);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

describe('a key with maxConcurrentRequests 1', () => {
  it('gets its slot back after streamed and non-streamed answers', async () => {
    expect(await streamed()).toBe('Hello there.');
    expect(await streamed()).toBe('Hello there.');
    const answer = await client.chat.completions.create({ model: 'test/scripted', messages });
    expect(answer.choices[0]?.message.content).toBe('Hello there.');
    expect(await slotFree()).toBe(true);
  });

  it('holds the slot while its stream is open, and gets it back when the client leaves', async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create({ model: 'test/hanging', messages, stream: true }, { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    // The stream is open: a second request of the key is refused.
    const refused = await client.chat.completions.create({ model: 'test/scripted', messages }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('concurrency_limit_exceeded');
    controller.abort();
    await iterator.next().catch(() => undefined);
    expect(await slotFree()).toBe(true);
  });

  it('gets its slot back after failures before the stream', async () => {
    const failed = await streamed('test/failing').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(await slotFree()).toBe(true);
    const unknown = await streamed('nowhere/x').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await slotFree()).toBe(true);
    const invalid = await client.chat.completions.create({ model: 'test/scripted', messages: [] }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await slotFree()).toBe(true);
  });

  it('gets its slot back after Responses answers, streamed, not streamed and failed', async () => {
    let text = '';
    for await (const event of await client.responses.create({ model: 'test/scripted', input: 'Hi', stream: true })) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Hello there.');
    const answer = await client.responses.create({ model: 'test/scripted', input: 'Hi' });
    expect(answer.output_text).toBe('Hello there.');
    const failed = await client.responses.create({ model: 'test/failing', input: 'Hi', stream: true }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(await slotFree()).toBe(true);
  });

  it('holds the slot while a Responses stream is open', async () => {
    const controller = new AbortController();
    const stream = await client.responses.create({ model: 'test/hanging', input: 'Hi', stream: true }, { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const refused = await client.responses.create({ model: 'test/scripted', input: 'Hi' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    controller.abort();
    await iterator.next().catch(() => undefined);
    expect(await slotFree()).toBe(true);
  });
});
