import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callsThenAnswer, MODEL_PATHS, useClientSuite } from './client-suite.ts';

// The OpenAI Agents SDK (`@openai/agents` 0.20) with OpenAIChatCompletionsModel, on every model path.
const suite = useClientSuite();

// Tracing would export spans to api.openai.com: loopback only.
beforeAll(() => setTracingDisabled(true));

const cities: string[] = [];
const getWeather = tool({
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => {
    cities.push(city);
    return `12°C and windy in ${city}`;
  },
});

function agentFor(model: string): Agent {
  const client = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
  return new Agent({ name: 'Weather', instructions: 'Answer weather questions with the tool.', model: new OpenAIChatCompletionsModel(client, model), tools: [getWeather] });
}

describe.each(MODEL_PATHS)('the Agents SDK on $model', ({ model, missingModel }) => {
  it('run() calls the tool and returns the final output', async () => {
    cities.length = 0;
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Wellington' } }], 'Windy in Wellington');
    const result = await run(agentFor(model), 'weather in Wellington?');
    expect(cities).toEqual(['Wellington']);
    expect(result.finalOutput).toContain('Windy in Wellington');
    expect(result.finalOutput).toContain('12°C and windy in Wellington');
    expect(suite.chatRequests()).toHaveLength(2);
  });

  it('run() streamed emits the tool call and its output, then completes', async () => {
    cities.length = 0;
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Reykjavík' } }], 'Cold in Reykjavík');
    const result = await run(agentFor(model), 'weather in Reykjavík?', { stream: true });
    const items: string[] = [];
    for await (const event of result) {
      if (event.type === 'run_item_stream_event') items.push(event.name);
    }
    await result.completed;
    expect(result.error).toBeNull();
    expect(cities).toEqual(['Reykjavík']);
    expect(items).toContain('tool_called');
    expect(items).toContain('tool_output');
    expect(result.finalOutput).toContain('Cold in Reykjavík');
  });

  it('a model the upstream does not have rejects with NotFoundError', async () => {
    const error = await run(agentFor(missingModel), 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
