import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createScriptedModel } from '@toolwire/core/testing';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

let server: ToolwireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function provider(model: Parameters<typeof startGateway>[0]) {
  const started = await startGateway(model);
  server = started.server;
  return createOpenAICompatible({ name: 'toolwire', baseURL: started.baseURL, apiKey: 'unused', includeUsage: true });
}

const weather = tool({
  description: 'Weather in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: ({ city }) => Promise.resolve(`sunny in ${city}`),
});

describe('the Vercel AI SDK (openai-compatible)', () => {
  it('generateText runs a multi-step tool round trip through the gateway', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'weather', arguments: { city: 'Lima' } }] }, { text: 'Sunny in Lima.' }]);
    const toolwire = await provider(model);
    const result = await generateText({ model: toolwire.chatModel('test/scripted'), prompt: 'weather in Lima?', tools: { weather }, stopWhen: stepCountIs(3) });
    expect(result.text).toBe('Sunny in Lima.');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Lima' } });
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'weather' });
  });

  it('streamText validates every chunk and gets the tool call, its result and the answer', async () => {
    const model = createScriptedModel(
      [
        { toolCalls: [{ name: 'weather', arguments: { city: 'Quito, Ecuador' } }], usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } },
        { text: 'Sunny in Quito.', usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 } },
      ],
      { chunkSize: 3 },
    );
    const toolwire = await provider(model);
    const result = streamText({ model: toolwire.chatModel('test/scripted'), prompt: 'weather in Quito?', tools: { weather }, stopWhen: stepCountIs(3) });
    const parts: string[] = [];
    for await (const part of result.stream) {
      if (part.type === 'error') throw part.error as Error;
      parts.push(part.type);
    }
    expect(await result.text).toBe('Sunny in Quito.');
    expect(parts).toContain('tool-call');
    expect(parts).toContain('tool-result');
    expect((await result.steps)[0]?.finishReason).toBe('tool-calls');
    expect((await result.usage).inputTokens).toBe(8);
  });

  it("gets its own get_current_time call back: a function with parameters is the client's, whatever its name", async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_current_time', arguments: { zone: 'Asia/Tokyo' } }] }, { text: 'unused' }]);
    const toolwire = await provider(model);
    const ownSchema = { type: 'object' as const, properties: { zone: { type: 'string' as const } }, required: ['zone'] };
    const result = streamText({
      model: toolwire.chatModel('test/scripted'),
      prompt: 'what time is it in Tokyo?',
      tools: { get_current_time: tool({ description: 'my clock', inputSchema: jsonSchema(ownSchema) }) },
    });
    expect(await result.toolCalls).toEqual([expect.objectContaining({ toolName: 'get_current_time', input: { zone: 'Asia/Tokyo' } })]);
    expect(await result.finishReason).toBe('tool-calls');
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.tools).toEqual([{ type: 'function', name: 'get_current_time', description: 'my clock', inputSchema: expect.objectContaining(ownSchema) }]);
  });

  it("gets the final answer when the key's alwaysTools adds a server tool the gateway runs", async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_current_time', arguments: { timezone: 'UTC' } }] }, { text: 'It is noon.' }]);
    const started = await startGateway(model, { keys: [{ id: 'team-a', keyHash: hashApiKey('sk-team-a'), alwaysTools: ['get_current_time'] }] });
    server = started.server;
    const toolwire = createOpenAICompatible({ name: 'toolwire', baseURL: started.baseURL, apiKey: 'sk-team-a', includeUsage: true });
    const result = streamText({ model: toolwire.chatModel('test/scripted'), prompt: 'what time is it?', tools: { weather } });
    expect(await result.text).toBe('It is noon.');
    expect((await result.toolCalls).length).toBe(0);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'get_current_time' });
  });
});
