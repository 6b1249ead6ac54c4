// Capability detection and the switch to text tools, with a stand-in for extract's
// `withTextToolCalling` so that these tests pin down this package's side of the contract:
// which model gets wrapped, with which options, and what reaches Ollama.
import { collectStream, InvalidRequestError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatStreamEvent, FunctionToolSpec } from '@toolwire/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOllama } from '../src/index.ts';
import { startFakeOllama } from './fake-ollama.ts';
import type { FakeOllama, FakeModel } from './fake-ollama.ts';

const wrapperOptions: unknown[] = [];

vi.mock('@toolwire/extract', () => ({
  withTextToolCalling: (inner: ChatModel, options: unknown): ChatModel => {
    wrapperOptions.push(options);
    const strip = (request: ChatRequest): ChatRequest => {
      const names = (request.tools ?? []).map((tool) => tool.name).join(', ');
      const { tools: _tools, toolChoice: _choice, ...rest } = request;
      return { ...rest, messages: [{ role: 'system', content: `TOOLS: ${names}` }, ...request.messages] };
    };
    return {
      provider: inner.provider,
      modelId: inner.modelId,
      generate: async (request) => {
        const response = await inner.generate(strip(request));
        return { ...response, toolCalls: [{ id: 'call_text', name: 'from_text', arguments: { text: response.text } }] };
      },
      stream: (request) => inner.stream(strip(request)),
    };
  },
}));

const weather: FunctionToolSpec = {
  type: 'function',
  name: 'get_weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};
const ask = { messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools: [weather] };

const servers: FakeOllama[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  wrapperOptions.length = 0;
});

async function serve(models: Record<string, FakeModel>): Promise<FakeOllama> {
  const server = await startFakeOllama(models);
  servers.push(server);
  return server;
}

const textOnly: FakeModel = { capabilities: ['completion'], reply: () => ({ content: 'get_weather(city="Paris")' }) };
const native: FakeModel = {
  capabilities: ['completion', 'tools'],
  reply: () => ({ tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }),
};
const count = (server: FakeOllama, path: string) => server.requests.filter((r) => r.path === path).length;

describe("textTools: 'auto'", () => {
  it('wraps a model without the tools capability in text tool calling with the call syntax', async () => {
    const server = await serve({ 'smollm2:360m': textOnly });
    const response = await createOllama({ host: server.host }).chat('smollm2:360m').generate(ask);

    expect(wrapperOptions).toEqual([{ format: 'call' }]);
    const [body] = server.chatBodies();
    expect(body?.tools).toBeUndefined();
    expect(body?.messages[0]).toEqual({ role: 'system', content: 'TOOLS: get_weather' });
    expect(response.toolCalls).toEqual([{ id: 'call_text', name: 'from_text', arguments: { text: 'get_weather(city="Paris")' } }]);
  });

  it('uses native tools for a model whose capabilities include tools', async () => {
    const server = await serve({ 'qwen3:0.6b': native });
    const response = await createOllama({ host: server.host }).chat('qwen3:0.6b').generate(ask);
    expect(wrapperOptions).toEqual([]);
    expect(server.chatBodies()[0]?.tools).toHaveLength(1);
    expect(response.toolCalls).toMatchObject([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
  });

  it('asks /api/show once per model and host, across provider instances', async () => {
    const a = await serve({ 'smollm2:360m': textOnly, 'qwen3:0.6b': native });
    const b = await serve({ 'smollm2:360m': { ...textOnly, capabilities: ['completion', 'tools'] } });
    for (let i = 0; i < 3; i++) {
      await createOllama({ host: a.host }).chat('smollm2:360m').generate(ask);
      await createOllama({ host: a.host }).chat('qwen3:0.6b').generate(ask);
    }
    await createOllama({ host: b.host }).chat('smollm2:360m').generate(ask);
    expect(a.requests.filter((r) => r.path === '/api/show').map((r) => (r.body as { model: string }).model).sort()).toEqual([
      'qwen3:0.6b',
      'smollm2:360m',
    ]);
    // Same model name on another server: its own lookup, and there it is native.
    expect(count(b, '/api/show')).toBe(1);
    expect(b.chatBodies()[0]?.tools).toHaveLength(1);
  });

  it('makes no capability lookup for a request without tools', async () => {
    const server = await serve({ 'smollm2:360m': { ...textOnly, reply: () => ({ content: 'Hello!' }) } });
    const response = await createOllama({ host: server.host }).chat('smollm2:360m').generate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(response.text).toBe('Hello!');
    expect(count(server, '/api/show')).toBe(0);
    expect(wrapperOptions).toEqual([]);
  });

  it('switches to text tools with a warning when Ollama answers 400 "does not support tools", and remembers it', async () => {
    const server = await serve({ 'gemma:2b': { ...textOnly, hideCapabilities: true } });
    const model = createOllama({ host: server.host }).chat('gemma:2b');
    const first = await model.generate(ask);
    expect(first.warnings[0]).toEqual({
      type: 'other',
      message: 'Ollama says "gemma:2b" does not support tools; using text tool calling instead.',
    });
    expect(first.toolCalls.map((c) => c.name)).toEqual(['from_text']);
    expect(server.chatBodies().map((b) => b.tools === undefined)).toEqual([false, true]);

    const second = await model.generate(ask);
    expect(second.warnings).toEqual([]);
    expect(server.chatBodies().map((b) => b.tools === undefined)).toEqual([false, true, true]);
  });

  it('switches a stream too, with the warning as its first event', async () => {
    const server = await serve({ 'gemma:2b': { ...textOnly, hideCapabilities: true } });
    const events: ChatStreamEvent[] = [];
    for await (const event of createOllama({ host: server.host }).chat('gemma:2b').stream(ask)) events.push(event);
    expect(events[0]).toMatchObject({ type: 'warning', warning: { message: expect.stringContaining('does not support tools') } });
    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('')).toBe('get_weather(city="Paris")');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });
});

describe('textTools forced', () => {
  it('true wraps even a tools-capable model, without asking /api/show', async () => {
    const server = await serve({ 'qwen3:0.6b': { ...native, reply: () => ({ content: 'get_weather(city="Paris")' }) } });
    const response = await createOllama({ host: server.host }).chat('qwen3:0.6b', { textTools: true }).generate(ask);
    expect(count(server, '/api/show')).toBe(0);
    expect(server.chatBodies()[0]?.tools).toBeUndefined();
    expect(response.toolCalls.map((c) => c.name)).toEqual(['from_text']);
  });

  it("false sends native tools and reports Ollama's refusal instead of switching", async () => {
    const server = await serve({ 'smollm2:360m': textOnly });
    const error = await createOllama({ host: server.host }).chat('smollm2:360m', { textTools: false }).generate(ask).catch((e: unknown) => e);
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('registry.ollama.ai/library/smollm2:360m does not support tools');
    expect(count(server, '/api/show')).toBe(0);
  });

  it('streams the text model through the wrapper', async () => {
    const server = await serve({ 'smollm2:360m': { ...textOnly, reply: () => ({ thinking: 'hm', content: 'a b c' }), capabilities: ['completion', 'thinking'] } });
    const response = await collectStream(createOllama({ host: server.host }).chat('smollm2:360m', { textTools: true, think: true }).stream(ask));
    expect(response).toMatchObject({ text: 'a b c', reasoning: 'hm', finishReason: 'stop' });
    expect(server.chatBodies()[0]).toMatchObject({ think: true, stream: true });
  });
});
