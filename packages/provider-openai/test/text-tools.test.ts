import { collectStream } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { weatherTool } from './tools.ts';
import { completion, textStream } from './chat-wire.ts';
import { useOpenAITestServer } from './openai-test-server.ts';


const server = useOpenAITestServer();

// How Ollama's /v1 answers `tools` for a model without tool support.
const REJECT_TOOLS = { kind: 'error' as const, status: 400, message: 'registry.ollama.ai/library/gemma:2b does not support tools' };

function provider() {
  return createOpenAI({ baseURL: server().baseURL, apiKey: 'ollama', maxRetries: 0 });
}

function systemPrompt(body: any): string {
  const first = body.messages[0];
  return first?.role === 'system' ? String(first.content) : '';
}

describe("textTools: 'auto' against a server that rejects tools", () => {
  it('falls back to text tools once, with a warning, and parses the call from the text', async () => {
    const model = provider().chat('gemma:2b', { textTools: 'auto' });
    server().reply(REJECT_TOOLS, { kind: 'json', body: completion({ content: 'get_weather(city="Paris")' }) });
    const first = await model.generate({ messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
    expect(first.toolCalls).toEqual([expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } })]);
    expect(first.finishReason).toBe('tool-calls');
    expect(first.warnings[0]?.message).toContain('does not support tools');
    expect(server().requests).toHaveLength(2);
    expect(server().requests[0]?.body.tools).toHaveLength(1);
    expect(server().requests[1]?.body).not.toHaveProperty('tools');
    expect(server().requests[1]?.body).not.toHaveProperty('tool_choice');
    expect(systemPrompt(server().requests[1]?.body)).toContain('get_weather');

    // The switch holds: the next call goes straight to text tools, streamed.
    server().reply({ kind: 'sse', frames: textStream(['get_wea', 'ther(city="Ro', 'me")']).map((data) => ({ data })) });
    const second = await collectStream(model.stream({ messages: [{ role: 'user', content: 'And Rome?' }], tools: [weatherTool] }));
    expect(second.toolCalls).toEqual([expect.objectContaining({ name: 'get_weather', arguments: { city: 'Rome' } })]);
    expect(second.warnings).toEqual([]);
    expect(server().requests).toHaveLength(3);
    expect(server().requests[2]?.body).not.toHaveProperty('tools');
  });

  it('switches a stream that the server refuses before it starts', async () => {
    const model = provider().chat('gemma:2b', { textTools: 'auto' });
    server().reply(REJECT_TOOLS, { kind: 'sse', frames: textStream(['Let me check. get_weather(city="Oslo")']).map((data) => ({ data })) });
    const response = await collectStream(model.stream({ messages: [{ role: 'user', content: 'Oslo?' }], tools: [weatherTool] }));
    expect(response.warnings).toHaveLength(1);
    expect(response.toolCalls).toEqual([expect.objectContaining({ name: 'get_weather', arguments: { city: 'Oslo' } })]);
  });
});

describe('textTools: true', () => {
  it('never sends native tools and reads json-tag calls', async () => {
    const model = provider().chat('gemma:2b', { textTools: true, textToolsFormat: 'json-tag' });
    server().reply({ kind: 'json', body: completion({ content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Lima"}}</tool_call>' }) });
    const response = await model.generate({ messages: [{ role: 'user', content: 'Lima?' }], tools: [weatherTool] });
    expect(response.toolCalls).toEqual([expect.objectContaining({ name: 'get_weather', arguments: { city: 'Lima' } })]);
    expect(server().requests).toHaveLength(1);
    expect(server().requests[0]?.body).not.toHaveProperty('tools');
    expect(systemPrompt(server().requests[0]?.body)).toContain('<tool_call>');
  });
});
