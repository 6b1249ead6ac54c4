import {
  InvalidRequestError,
  ModelNotFoundError,
  ProviderServerError,
  ProviderUnavailableError,
  StreamError,
} from '@toolwire/core';
import type { ChatStreamEvent, FunctionToolSpec } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { startFakeOllama } from './fake-ollama.ts';
import type { FakeOllama } from './fake-ollama.ts';

const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };
const tool: FunctionToolSpec = { type: 'function', name: 'get_weather', inputSchema: { type: 'object' } };

let server: FakeOllama;
beforeAll(async () => {
  server = await startFakeOllama({
    'qwen3:0.6b': { capabilities: ['completion', 'tools'], reply: () => ({ content: 'hello' }) },
    'broken:1b': { capabilities: ['completion'], reply: () => ({ status: 500, error: 'model requires more system memory (5.2 GiB) than is available (3.1 GiB)' }) },
    'flaky:1b': { capabilities: ['completion'], reply: () => ({ content: 'partial answer', streamError: 'an error was encountered while running the model: unexpected EOF' }) },
    'cut:1b': { capabilities: ['completion'], reply: () => ({ content: 'partial answer', cutOff: true }) },
    'dropped:1b': { capabilities: ['completion', 'tools'], reply: () => ({ content: 'partial answer', dropConnection: true }) },
  });
});
afterAll(() => server.close());

async function closedHost(): Promise<string> {
  const gone = await startFakeOllama();
  await gone.close();
  return gone.host;
}

describe('Ollama not running', () => {
  it('generate throws ProviderUnavailableError naming the host and how to start Ollama', async () => {
    const host = await closedHost();
    const error = await createOllama({ host }).chat('qwen3:0.6b').generate(hi).catch((e: unknown) => e);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`Ollama is not reachable at ${host}. Start it with \`ollama serve\` or set OLLAMA_HOST.`);
    expect((error as ProviderUnavailableError).baseURL).toBe(host);
  });

  it('stream throws it from the first next(), and listModels throws it too', async () => {
    const host = await closedHost();
    const iterator = createOllama({ host }).chat('qwen3:0.6b').stream(hi)[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toSatisfy((e: unknown) => ProviderUnavailableError.isInstance(e));
    await expect(createOllama({ host }).listModels()).rejects.toSatisfy((e: unknown) => ProviderUnavailableError.isInstance(e));
  });

  it('the capability lookup of a tools request reports it the same way', async () => {
    const host = await closedHost();
    await expect(createOllama({ host }).chat('qwen3:0.6b').generate({ ...hi, tools: [tool] })).rejects.toThrow(
      `Ollama is not reachable at ${host}.`,
    );
  });
});

describe('unknown model', () => {
  it('names the model and suggests ollama pull, from /api/chat', async () => {
    const error = await createOllama({ host: server.host }).chat('llama3.2:1b').generate(hi).catch((e: unknown) => e);
    expect(ModelNotFoundError.isInstance(error)).toBe(true);
    expect((error as ModelNotFoundError).modelId).toBe('llama3.2:1b');
    expect((error as ModelNotFoundError).status).toBe(404);
    expect((error as Error).message).toBe(
      `Model "llama3.2:1b" is not available on the Ollama server at ${server.host}. Pull it with \`ollama pull llama3.2:1b\` ` +
        '(Ollama said: model "llama3.2:1b" not found, try pulling it first).',
    );
  });

  it('and from the /api/show lookup of a tools request, streamed', async () => {
    const iterator = createOllama({ host: server.host }).chat('nope:7b').stream({ ...hi, tools: [tool] })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toSatisfy(
      (e: unknown) => ModelNotFoundError.isInstance(e) && e.message.includes('`ollama pull nope:7b`'),
    );
  });
});

describe("other errors keep Ollama's message", () => {
  it('400 becomes InvalidRequestError', async () => {
    const error = await createOllama({ host: server.host }).chat('qwen3:0.6b', { think: true }).generate(hi).catch((e: unknown) => e);
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('"qwen3:0.6b" does not support thinking');
    expect((error as InvalidRequestError).status).toBe(400);
  });

  it('500 becomes ProviderServerError', async () => {
    const error = await createOllama({ host: server.host }).chat('broken:1b').generate(hi).catch((e: unknown) => e);
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('model requires more system memory (5.2 GiB) than is available (3.1 GiB)');
  });

  it('an error line in a started stream becomes the final error event', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const event of createOllama({ host: server.host }).chat('flaky:1b').stream(hi)) events.push(event);
    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('')).toBe('partial answer');
    const last = events.at(-1);
    expect(last?.type).toBe('error');
    const error = (last as Extract<ChatStreamEvent, { type: 'error' }>).error;
    expect(StreamError.isInstance(error)).toBe(true);
    expect(error.message).toBe('an error was encountered while running the model: unexpected EOF');
  });

  it('a connection dropped mid-answer says so, not that Ollama is unreachable', async () => {
    for (const request of [hi, { ...hi, tools: [tool] }]) {
      const events: ChatStreamEvent[] = [];
      for await (const event of createOllama({ host: server.host }).chat('dropped:1b').stream(request)) events.push(event);
      expect(events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('')).toBe('partial answer');
      const last = events.at(-1);
      expect(last?.type).toBe('error');
      const error = (last as Extract<ChatStreamEvent, { type: 'error' }>).error;
      expect(StreamError.isInstance(error)).toBe(true);
      expect(ProviderUnavailableError.isInstance(error)).toBe(false);
      expect(error.message).toContain(`The connection to Ollama at ${server.host} was lost during the answer`);
      expect(error.message).not.toContain('ollama serve');
    }
  });

  it('a stream that ends without its done chunk ends with an error event', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const event of createOllama({ host: server.host }).chat('cut:1b').stream(hi)) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'error' });
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });
});

describe('aborting', () => {
  it('an aborted signal rejects generate with the abort, not a provider error', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await createOllama({ host: server.host }).chat('qwen3:0.6b').generate({ ...hi, signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
  });

  it('leaving a stream early closes the HTTP stream', async () => {
    server.models.set('endless:1b', { capabilities: ['completion'], reply: () => ({ content: 'on and on', hold: true }) });
    const abandoned = server.nextAbandonedStream();
    for await (const event of createOllama({ host: server.host }).chat('endless:1b').stream(hi)) {
      expect(event.type).toBe('text-delta');
      break;
    }
    await abandoned; // never resolves (and the test times out) if the request stays open
  });

  it('aborting the signal mid-stream ends the stream with the abort as its error event', async () => {
    server.models.set('endless:1b', { capabilities: ['completion'], reply: () => ({ content: 'on and on', hold: true }) });
    const controller = new AbortController();
    const events: ChatStreamEvent[] = [];
    for await (const event of createOllama({ host: server.host }).chat('endless:1b').stream({ ...hi, signal: controller.signal })) {
      events.push(event);
      controller.abort();
    }
    expect(events[0]?.type).toBe('text-delta');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { name: 'AbortError' } });
  });
});
