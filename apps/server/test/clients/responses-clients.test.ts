import { createOpenAI } from '@ai-sdk/openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callsThenAnswer, MODEL_PATHS, useClientSuite, weatherParameters } from './client-suite.ts';

/**
 * The clients that speak only Responses (openai-node `responses.create/stream`, the Agents
 * SDK's default model, the AI SDK's `openai(id)`), against the gateway's own bin in front
 * of the paced upstream, on the three model paths: `openai/` (native tool calls), Ollama
 * text-only (calls written as text, extracted by the gateway) and Ollama native.
 */
const suite = useClientSuite();

// Tracing would export spans to api.openai.com: loopback only.
beforeAll(() => setTracingDisabled(true));

/**
 * A fetch that also hands a copy of every streamed answer to openai-node's own Responses
 * stream helper, which checks each event (order, ids, indexes, sequence) and throws on any
 * it cannot apply: the conformance check for the streams the other clients read.
 */
const conformance: Promise<unknown>[] = [];
const checkedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.body === null || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
  const [mine, theirs] = res.body.tee();
  conformance.push(
    new Response(theirs).text().then((sse) => {
      const lines = sse
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => `${line.slice(6)}\n`)
        .join('');
      return ResponseStream.fromReadableStream(new Response(lines).body!).finalResponse();
    }),
  );
  return new Response(mine, { status: res.status, statusText: res.statusText, headers: res.headers });
};

/** The scripted answer names the tool results it saw (the text-only model sees them rendered as text). */
function expectAnswer(text: string | undefined, answer: string, result: string): void {
  expect(text?.startsWith(`${answer} [`)).toBe(true);
  expect(text).toContain(result);
}

const weather: FunctionTool = { type: 'function', name: 'get_weather', description: 'Current weather in a city', parameters: weatherParameters, strict: true };

describe.each(MODEL_PATHS)('Responses clients on $model', ({ model, missingModel }) => {
  beforeEach(() => {
    conformance.length = 0;
  });
  afterEach(async () => {
    // Every stream the clients read parses in openai-node's helper without errors.
    const parsed = await Promise.all(conformance);
    for (const response of parsed) expect(response).toMatchObject({ object: 'response', status: 'completed' });
  });

  it('openai-node responses.create: function_call, then function_call_output, then the answer', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Paris' } }], 'Mild in Paris');
    const openai = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
    const first = await openai.responses.create({ model, input: 'Weather in Paris?', tools: [weather], store: false });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error(`no function_call in ${JSON.stringify(first.output)}`);
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(call.call_id).toMatch(/^call_/);
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    const second = await openai.responses.create({
      model,
      input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18 C' }],
      tools: [weather],
      store: false,
    });
    expectAnswer(second.output_text, 'Mild in Paris', '18 C');
    expect(suite.chatRequests()).toHaveLength(2);
  });

  it('openai-node responses.stream: the call streams, finalResponse() parses, the round trip answers', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Rome' } }], 'Warm in Rome');
    const openai = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
    const stream = openai.responses.stream({ model, input: 'Weather in Rome?', tools: [weather] });
    const types = new Set<string>();
    stream.on('event', (event) => types.add(event.type));
    const first = await stream.finalResponse();
    expect([...types]).toEqual(expect.arrayContaining(['response.created', 'response.output_item.added', 'response.function_call_arguments.done', 'response.completed']));
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function_call');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Rome' });
    const second = openai.responses.stream({
      model,
      input: [{ role: 'user', content: 'Weather in Rome?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '25 C' }],
      tools: [weather],
    });
    let text = '';
    second.on('response.output_text.delta', (event) => (text += event.delta));
    const final = await second.finalResponse();
    expectAnswer(final.output_text, 'Warm in Rome', '25 C');
    expect(text).toBe(final.output_text);
  });

  it('@openai/agents with its default (Responses) model runs the tool and answers, streamed and not', async () => {
    setDefaultOpenAIClient(new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0, fetch: checkedFetch }));
    setOpenAIAPI('responses');
    const cities: string[] = [];
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => {
        cities.push(city);
        return `12 C in ${city}`;
      },
    });
    const agent = new Agent({ name: 'Weather', instructions: 'Answer with the weather.', model, tools: [getWeather] });
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Lima' } }], 'Grey in Lima');
    const result = await run(agent, 'Weather in Lima?');
    expectAnswer(result.finalOutput, 'Grey in Lima', '12 C in Lima');
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Quito' } }], 'Fresh in Quito');
    const streamed = await run(agent, 'Weather in Quito?', { stream: true });
    let text = '';
    for await (const chunk of streamed.toTextStream()) text += chunk;
    await streamed.completed;
    expectAnswer(text, 'Fresh in Quito', '12 C in Quito');
    expect(cities).toEqual(['Lima', 'Quito']);
    expect(conformance.length).toBeGreaterThanOrEqual(2);
  });

  it('@ai-sdk/openai openai(id) with generateText and streamText runs two steps', async () => {
    const openai = createOpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, fetch: checkedFetch });
    const cities: string[] = [];
    const tools = {
      get_weather: tool({
        description: 'Current weather in a city',
        inputSchema: jsonSchema<{ city: string }>(weatherParameters),
        execute: ({ city }) => {
          cities.push(city);
          return Promise.resolve(`3 C in ${city}`);
        },
      }),
    };
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Oslo' } }], 'Cold in Oslo');
    const generated = await generateText({ model: openai(model), prompt: 'Weather in Oslo?', tools, stopWhen: stepCountIs(3) });
    expectAnswer(generated.text, 'Cold in Oslo', '3 C in Oslo');
    expect(generated.steps).toHaveLength(2);
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Bergen' } }], 'Wet in Bergen');
    const streamed = streamText({ model: openai(model), prompt: 'Weather in Bergen?', tools, stopWhen: stepCountIs(3) });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expectAnswer(text, 'Wet in Bergen', '3 C in Bergen');
    expect((await streamed.steps).length).toBe(2);
    expect(cities).toEqual(['Oslo', 'Bergen']);
    expect(conformance.length).toBeGreaterThanOrEqual(2);
  });

  it('parallel_tool_calls: false gets one call per turn, even from a model that makes two', async () => {
    suite.upstream.script = callsThenAnswer(
      [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Berlin' } },
      ],
      'Both mild',
    );
    const openai = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
    const response = await openai.responses.stream({ model, input: 'Paris and Berlin?', tools: [weather], parallel_tool_calls: false }).finalResponse();
    const calls = response.output.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => (call.type === 'function_call' ? (JSON.parse(call.arguments) as unknown) : undefined))).toEqual([{ city: 'Paris' }]);
  });

  it('a client function with a hyphenated name comes back as a function_call', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'weather-now', arguments: { city: 'Lyon' } }], 'Fine');
    const openai = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
    const response = await openai.responses.create({ model, input: 'Lyon?', tools: [{ ...weather, name: 'weather-now' }] });
    expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'weather-now', arguments: '{"city":"Lyon"}' });
  });

  it('a model the upstream does not have is a NotFoundError', async () => {
    const openai = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
    await expect(openai.responses.create({ model: missingModel, input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
