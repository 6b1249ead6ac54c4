// Ollama's documented /api/chat answers (src/__fixtures__/ollama-api-docs.chat.json, from its
// API documentation) served to the real `ollama` client on 127.0.0.1 and read by this
// provider: a stream of the documented chunk shape, the documented whole answer, and the
// documented tool call.
import { readFileSync } from 'node:fs';
import { startConformanceServer } from '@toolwire/core/testing';
import type { ConformanceServer } from '@toolwire/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';

const docs = JSON.parse(readFileSync(new URL('../src/__fixtures__/ollama-api-docs.chat.json', import.meta.url), 'utf8')) as Record<string, Record<string, any>>;
const show = JSON.stringify({ capabilities: ['completion', 'tools'], details: { family: 'llama' }, model_info: {} });

let server: ConformanceServer;
beforeAll(async () => {
  server = await startConformanceServer();
});
afterAll(() => server.close());

function serve(chat: (body: any) => string): void {
  server.handle((request) => (request.path === '/api/show' ? { reply: { status: 200, body: show } } : { reply: { status: 200, body: chat(request.body) }, pacing: { chunkSize: 9 } }));
}

const weather = {
  type: 'function' as const,
  name: 'get_current_weather',
  description: 'Get the current weather for a location',
  inputSchema: { type: 'object' as const, properties: { location: { type: 'string' as const }, format: { type: 'string' as const, enum: ['celsius', 'fahrenheit'] } }, required: ['location', 'format'] },
};

describe("Ollama's documented /api/chat answers", () => {
  it('streams the documented chunks, and a final chunk without done_reason finishes as stop with the eval counts', async () => {
    const words = ['The', ' sky', ' is', ' blue.'];
    serve(() => [...words.map((content) => JSON.stringify({ ...docs.streamChunk, message: { ...docs.streamChunk!.message, content } })), JSON.stringify(docs.streamFinal)].join('\n') + '\n');
    const response = await (async () => {
      const events = [];
      for await (const event of createOllama({ host: server.url }).chat('llama3.2', { textTools: false }).stream({ messages: [{ role: 'user', content: 'why is the sky blue?' }] })) events.push(event);
      return events;
    })();
    expect(response.filter((event) => event.type === 'text-delta').map((event) => (event as { delta: string }).delta).join('')).toBe('The sky is blue.');
    expect(response.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 26, outputTokens: 282, totalTokens: 308 } });
  });

  it('reads the documented whole answer', async () => {
    serve(() => JSON.stringify(docs.noStreaming));
    const response = await createOllama({ host: server.url }).chat('llama3.2', { textTools: false }).generate({ messages: [{ role: 'user', content: 'Hello!' }], providerOptions: { ollama: {} } });
    expect(response.text).toBe('Hello! How are you today?');
    expect(response.usage).toMatchObject({ inputTokens: 26, outputTokens: 298 });
  });

  it('reads the documented tool call with object arguments', async () => {
    serve((body) => (body.stream === false ? JSON.stringify(docs.withTools) : `${JSON.stringify({ ...docs.withTools, done: false, done_reason: undefined })}\n${JSON.stringify({ ...docs.streamFinal, message: { role: 'assistant', content: '' }, done_reason: 'stop' })}\n`));
    const model = createOllama({ host: server.url }).chat('llama3.2', { textTools: false });
    const response = await model.generate({ messages: [{ role: 'user', content: 'What is the weather today in Paris?' }], tools: [weather] });
    expect(response.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } }]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usage).toMatchObject({ inputTokens: 122, outputTokens: 33 });
  });
});
