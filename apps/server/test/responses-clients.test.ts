import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeOllama, startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream, UpstreamReply } from './helpers/fake-upstreams.ts';

/**
 * The clients that speak only Responses, against the gateway's own bin in front of local
 * upstreams, on the three model paths: `openai/` (native tool calls), Ollama with native
 * tools, and Ollama text-only (tool calls written as text and extracted by the gateway).
 */

const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

interface Path {
  label: string;
  model: string;
  /** The model's turn when it wants to call get_weather for `city`. */
  call(city: string): UpstreamReply;
}

const paths: Path[] = [
  { label: 'openai/', model: 'openai/gpt-fake', call: (city) => ({ toolCalls: [{ name: 'get_weather', arguments: { city } }] }) },
  { label: 'ollama native', model: 'ollama/native', call: (city) => ({ toolCalls: [{ name: 'get_weather', arguments: { city } }] }) },
  { label: 'ollama text-only', model: 'ollama/text', call: (city) => ({ text: `get_weather(city="${city}")` }) },
];

/** The tool result the model was given, on any path (a `tool` message, or the text path's rendered result). */
function toolResultOf(body: Record<string, unknown>): string | undefined {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const last = messages.at(-1);
  if (last === undefined) return undefined;
  const content = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  if (last.role === 'tool') return content;
  if (last.role === 'user' && content.startsWith('Result of get_weather')) return content;
  return undefined;
}

/** A message's text, whether its content is a string or a list of text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('') : '';
}

/** The city the user asked about (the last user message that is not a tool result). */
function cityOf(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const asked = messages.filter((m) => m.role === 'user' && !textOf(m.content).startsWith('Result of')).at(-1);
  const text = textOf(asked?.content);
  return text.slice(text.lastIndexOf(' ') + 1).replace('?', '');
}

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

let openaiUpstream: FakeUpstream;
let ollamaUpstream: FakeUpstream;
let gateway: ChildProcess;
let baseURL: string;
let current: Path = paths[0]!;

function reply(body: Record<string, unknown>): UpstreamReply {
  const result = toolResultOf(body);
  if (result !== undefined) return { text: `The weather: ${result.includes('18') ? '18 degrees' : result}.` };
  return current.call(cityOf(body));
}

beforeAll(async () => {
  openaiUpstream = await startFakeOpenAI(reply);
  ollamaUpstream = await startFakeOllama(reply);
  gateway = spawn(
    process.execPath,
    ['--conditions=@toolwire/source', bin, '--port', '0', '--host', '127.0.0.1', '--openai-base-url', `${openaiUpstream.url}/v1`, '--ollama-host', ollamaUpstream.url],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-upstream', NODE_OPTIONS: '' } },
  );
  for await (const line of createInterface({ input: gateway.stdout! })) {
    const msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
    if (msg.startsWith('Toolwire gateway at ')) {
      baseURL = msg.slice('Toolwire gateway at '.length);
      break;
    }
  }
  setTracingDisabled(true);
}, 30_000);

afterAll(async () => {
  gateway.kill('SIGTERM');
  await openaiUpstream.close();
  await ollamaUpstream.close();
});

const weather: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe.each(paths)('Responses clients on the $label path', (path) => {
  beforeEach(() => {
    current = path;
    conformance.length = 0;
  });
  afterEach(async () => {
    // Every stream the clients read parses in openai-node's helper without errors.
    const parsed = await Promise.all(conformance);
    for (const response of parsed) expect(response).toMatchObject({ object: 'response', status: 'completed' });
  });

  it('openai-node responses.create: function_call, then function_call_output, then the answer', async () => {
    const openai = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });
    const first = await openai.responses.create({ model: path.model, input: 'Weather in Paris?', tools: [weather], store: false });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error(`no function_call in ${JSON.stringify(first.output)}`);
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    const second = await openai.responses.create({
      model: path.model,
      input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18 C' }],
      tools: [weather],
      store: false,
    });
    expect(second.output_text).toBe('The weather: 18 degrees.');
  });

  it('openai-node responses.stream: the call streams, finalResponse() parses, the round trip answers', async () => {
    const openai = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });
    const stream = openai.responses.stream({ model: path.model, input: 'Weather in Rome?', tools: [weather] });
    const types = new Set<string>();
    stream.on('event', (event) => types.add(event.type));
    const first = await stream.finalResponse();
    expect([...types]).toEqual(expect.arrayContaining(['response.created', 'response.output_item.added', 'response.function_call_arguments.done', 'response.completed']));
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function_call');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Rome' });
    const second = openai.responses.stream({
      model: path.model,
      input: [{ role: 'user', content: 'Weather in Rome?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18 C' }],
      tools: [weather],
    });
    let text = '';
    second.on('response.output_text.delta', (event) => (text += event.delta));
    expect((await second.finalResponse()).output_text).toBe('The weather: 18 degrees.');
    expect(text).toBe('The weather: 18 degrees.');
  });

  it('@openai/agents with its default (Responses) model runs the tool and answers, streamed and not', async () => {
    setDefaultOpenAIClient(new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0, fetch: checkedFetch }));
    setOpenAIAPI('responses');
    const cities: string[] = [];
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => {
        cities.push(city);
        return '18 C';
      },
    });
    const agent = new Agent({ name: 'Weather', instructions: 'Answer with the weather.', model: path.model, tools: [getWeather] });
    const result = await run(agent, 'Weather in Lima?');
    expect(result.finalOutput).toBe('The weather: 18 degrees.');
    const streamed = await run(agent, 'Weather in Quito?', { stream: true });
    let text = '';
    for await (const chunk of streamed.toTextStream()) text += chunk;
    await streamed.completed;
    expect(text).toBe('The weather: 18 degrees.');
    expect(cities).toEqual(['Lima', 'Quito']);
    expect(conformance.length).toBeGreaterThanOrEqual(2);
  });

  it('@ai-sdk/openai openai(id) with generateText and streamText runs two steps', async () => {
    const openai = createOpenAI({ apiKey: 'unused', baseURL, fetch: checkedFetch });
    const cities: string[] = [];
    const tools = {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
        execute: ({ city }) => {
          cities.push(city);
          return Promise.resolve('18 C');
        },
      }),
    };
    const generated = await generateText({ model: openai(path.model), prompt: 'Weather in Oslo?', tools, stopWhen: stepCountIs(3) });
    expect(generated.text).toBe('The weather: 18 degrees.');
    expect(generated.steps).toHaveLength(2);
    const streamed = streamText({ model: openai(path.model), prompt: 'Weather in Bergen?', tools, stopWhen: stepCountIs(3) });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe('The weather: 18 degrees.');
    expect((await streamed.steps).length).toBe(2);
    expect(cities).toEqual(['Oslo', 'Bergen']);
    expect(conformance.length).toBeGreaterThanOrEqual(2);
  });
});
