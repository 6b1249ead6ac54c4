import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callsThenAnswer, MODEL_PATHS, useClientSuite } from './client-suite.ts';

// LangChain's ChatOpenAI (`@langchain/openai` 1.x) against the gateway's bin, on every model path.
const suite = useClientSuite();

const getWeather = tool(({ city }) => `18°C in ${city}`, {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: z.object({ city: z.string().describe('City name') }),
});

const chat = (model: string): ChatOpenAI => new ChatOpenAI({ model, apiKey: 'unused', configuration: { baseURL: suite.gateway.baseURL }, maxRetries: 0 });

describe.each(MODEL_PATHS)('LangChain ChatOpenAI on $model', ({ model, missingModel }) => {
  it('bindTools + invoke gets tool_calls with parsed args', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Paris' } }], 'Nice');
    const message = await chat(model).bindTools([getWeather]).invoke([new HumanMessage('weather in Paris?')]);
    expect(message.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Paris' }, type: 'tool_call' })]);
    expect(message.tool_calls?.[0]?.id).toMatch(/^call_/);
  });

  it('bindTools + stream delivers tool_call_chunks that concatenate to the call', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'São Paulo' } }], 'Warm');
    const stream = await chat(model).bindTools([getWeather]).stream([new HumanMessage('weather in São Paulo?')]);
    let merged: AIMessageChunk | undefined;
    let chunksWithCalls = 0;
    for await (const chunk of stream) {
      if ((chunk.tool_call_chunks?.length ?? 0) > 0) chunksWithCalls++;
      merged = merged === undefined ? chunk : merged.concat(chunk);
    }
    expect(chunksWithCalls).toBeGreaterThan(0);
    expect(merged?.tool_call_chunks?.[0]).toMatchObject({ name: 'get_weather', index: 0 });
    expect(merged?.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'São Paulo' } })]);
  });

  it('a two-turn round trip with a ToolMessage gets the final answer', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Lisbon' } }], 'Sunny in Lisbon');
    const model_ = chat(model).bindTools([getWeather]);
    const messages: BaseMessage[] = [new HumanMessage('weather in Lisbon?')];
    const first = await model_.invoke(messages);
    const call = first.tool_calls![0]!;
    messages.push(first, new ToolMessage({ tool_call_id: call.id!, content: await getWeather.invoke(call.args as { city: string }) }));
    const second = await model_.invoke(messages);
    expect(second).toBeInstanceOf(AIMessage);
    expect(second.content).toContain('Sunny in Lisbon');
    expect(second.content).toContain('18°C in Lisbon');
    expect(second.tool_calls ?? []).toEqual([]);
  });

  it('tool_choice naming the tool gets its call', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Accra' } }], 'Hot');
    const message = await chat(model).bindTools([getWeather], { tool_choice: 'get_weather' }).invoke([new HumanMessage('Accra')]);
    expect(message.tool_calls?.map((c) => c.name)).toEqual(['get_weather']);
  });

  it('a model the upstream does not have fails with status 404', async () => {
    const error = await chat(missingModel)
      .invoke([new HumanMessage('x')])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ status: 404 });
  });
});
