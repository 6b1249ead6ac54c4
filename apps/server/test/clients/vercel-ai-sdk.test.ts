import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { callsThenAnswer, MODEL_PATHS, useClientSuite, weatherParameters } from './client-suite.ts';

// The Vercel AI SDK (`ai` 7) through both of its OpenAI-format providers, on every model path.
const suite = useClientSuite();

const PROVIDERS: { name: string; model: (baseURL: string, id: string) => LanguageModel }[] = [
  { name: '@ai-sdk/openai-compatible', model: (baseURL, id) => createOpenAICompatible({ name: 'toolwire', baseURL, apiKey: 'unused', includeUsage: true }).chatModel(id) },
  { name: '@ai-sdk/openai .chat()', model: (baseURL, id) => createOpenAI({ baseURL, apiKey: 'unused' }).chat(id) },
];

const executed: string[] = [];
const weather = tool({
  description: 'Current weather in a city',
  inputSchema: jsonSchema<{ city: string }>(weatherParameters),
  execute: ({ city }) => {
    executed.push(city);
    return Promise.resolve(`21°C and sunny in ${city}`);
  },
});

describe.each(MODEL_PATHS)('the AI SDK on $model', ({ model, missingModel }) => {
  describe.each(PROVIDERS)('with $name', (provider) => {
    it('generateText runs a multi-step round trip with execute', async () => {
      executed.length = 0;
      suite.upstream.script = callsThenAnswer([{ name: 'weather', arguments: { city: 'Lima' } }], 'Sunny in Lima');
      const result = await generateText({ model: provider.model(suite.gateway.baseURL, model), prompt: 'weather in Lima?', tools: { weather }, stopWhen: stepCountIs(3), maxRetries: 0 });
      expect(executed).toEqual(['Lima']);
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0]?.finishReason).toBe('tool-calls');
      expect(result.steps[0]?.toolCalls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Lima' } });
      expect(result.text).toContain('Sunny in Lima');
      expect(result.text).toContain('21°C and sunny in Lima');
    });

    it('streamText runs the same round trip, every chunk valid', async () => {
      executed.length = 0;
      suite.upstream.script = callsThenAnswer([{ name: 'weather', arguments: { city: 'Quito, Ecuador' } }], 'Mild in Quito');
      const result = streamText({ model: provider.model(suite.gateway.baseURL, model), prompt: 'weather in Quito?', tools: { weather }, stopWhen: stepCountIs(3), maxRetries: 0 });
      const parts: string[] = [];
      for await (const part of result.stream) {
        if (part.type === 'error') throw part.error as Error;
        parts.push(part.type);
      }
      expect(executed).toEqual(['Quito, Ecuador']);
      expect(parts).toContain('tool-call');
      expect(parts).toContain('tool-result');
      expect(await result.text).toContain('Mild in Quito');
      expect((await result.steps)[0]?.finishReason).toBe('tool-calls');
    });

    it('toolChoice naming the tool gets its call', async () => {
      suite.upstream.script = callsThenAnswer([{ name: 'weather', arguments: { city: 'Bogotá' } }], 'Rainy');
      const result = await generateText({
        model: provider.model(suite.gateway.baseURL, model),
        prompt: 'Bogotá',
        tools: { weather: tool({ description: weather.description, inputSchema: jsonSchema<{ city: string }>(weatherParameters) }) },
        toolChoice: { type: 'tool', toolName: 'weather' },
        maxRetries: 0,
      });
      expect(result.toolCalls).toEqual([expect.objectContaining({ toolName: 'weather', input: { city: 'Bogotá' } })]);
      expect(result.finishReason).toBe('tool-calls');
    });

    it('a model the upstream does not have is an APICallError with status 404', async () => {
      const error = await generateText({ model: provider.model(suite.gateway.baseURL, missingModel), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
      expect(APICallError.isInstance(error)).toBe(true);
      expect((error as APICallError).statusCode).toBe(404);
    });
  });
});
