import { createOpenAI } from '@ai-sdk/openai';
import { createScriptedModel } from '@toolwire/core/testing';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

let server: ToolwireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function client(model: Parameters<typeof startGateway>[0], config: Parameters<typeof startGateway>[1] = {}): Promise<OpenAI> {
  const started = await startGateway(model, config);
  server = started.server;
  return new OpenAI({ apiKey: 'unused', baseURL: started.baseURL, maxRetries: 0 });
}

const weather: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

const usage = { inputTokens: 7, outputTokens: 3, totalTokens: 10 };

describe('POST /v1/responses with the official openai client', () => {
  it('responses.create() gets a Response with a resp_ id, output_text and usage', async () => {
    const openai = await client(createScriptedModel([{ text: 'Hello!', usage }]));
    const response = await openai.responses.create({ model: 'test/scripted', input: 'hi', instructions: 'Be kind.', store: false });
    expect(response.id).toMatch(/^resp_/);
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'test/scripted', instructions: 'Be kind.', store: false });
    expect(response.output_text).toBe('Hello!');
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
  });

  it('round trip: a function_call comes back, its function_call_output reaches the model', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny in Paris.' }]);
    const openai = await client(model);
    const first = await openai.responses.create({ model: 'test/scripted', input: 'Weather in Paris?', tools: [weather], store: false });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    if (call?.type !== 'function_call') throw new Error('no call');
    expect(call.call_id).toMatch(/^call_/);
    expect(call.id).toMatch(/^fc_/);
    const second = await openai.responses.create({
      model: 'test/scripted',
      input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' }],
      tools: [weather],
      store: false,
    });
    expect(second.output_text).toBe('Sunny in Paris.');
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: 'tool', toolCallId: call.call_id, toolName: 'get_weather', content: '{"temp":21}' });
    expect(model.requests[0]?.tools?.[0]).toMatchObject({ name: 'get_weather', strict: true });
  });

  it('responses.stream() delivers text deltas and a finalResponse with the call', async () => {
    const openai = await client(createScriptedModel([{ text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }], usage }], { chunkSize: 3 }));
    const stream = openai.responses.stream({ model: 'test/scripted', input: 'Weather in Rome?', tools: [weather] });
    const deltas: string[] = [];
    const argDeltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    stream.on('response.function_call_arguments.delta', (event) => argDeltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(deltas.join('')).toBe('Let me check.');
    expect(argDeltas.join('')).toBe('{"city":"Rome"}');
    expect(response.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(response.status).toBe('completed');
    expect(response.usage?.total_tokens).toBe(10);
  });

  it('streams the raw events with increasing sequence numbers and event names', async () => {
    const started = await startGateway(createScriptedModel([{ text: 'Hi' }]));
    server = started.server;
    const res = await fetch(`${started.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/scripted', input: 'hi', stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    const events = frames.map((frame) => {
      const lines = frame.split('\n');
      const data = JSON.parse(lines.find((line) => line.startsWith('data: '))?.slice(6) ?? 'null') as { type: string; sequence_number: number };
      expect(lines[0]).toBe(`event: ${data.type}`);
      return data;
    });
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(text).not.toContain('[DONE]');
  });

  it('a custom (freeform) tool is offered as a function and its call comes back as a custom_tool_call', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** End Patch' } }] }]);
    const openai = await client(model);
    const response = await openai.responses.create({
      model: 'test/scripted',
      input: 'patch it',
      tools: [{ type: 'custom', name: 'apply_patch', description: 'Apply a patch', format: { type: 'text' } }],
    });
    expect(response.output[0]).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' });
    expect(model.requests[0]?.tools?.[0]).toMatchObject({ type: 'function', name: 'apply_patch', inputSchema: { required: ['input'] } });
  });

  it('runs a server tool the client names and returns the client its own call in the same turn', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'calculate', arguments: { expression: '6*7' } },
          { name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { text: 'It is 42 and cold.' },
    ]);
    const openai = await client(model);
    const first = await openai.responses.create({ model: 'test/scripted', input: '6*7 and weather in Oslo?', tools: [weather, { type: 'function', name: 'calculate' } as unknown as FunctionTool] });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => call.type === 'function_call' && call.name)).toEqual(['get_weather']);
    const call = calls[0];
    if (call?.type !== 'function_call') throw new Error('no call');
    await openai.responses.create({
      model: 'test/scripted',
      input: [{ role: 'user', content: '6*7 and weather in Oslo?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '-3 C' }],
      tools: [weather, { type: 'function', name: 'calculate' } as unknown as FunctionTool],
    });
    // The model sees its whole turn again: the server's call and result restored from the turn store.
    const replayed = model.requests[1]?.messages ?? [];
    expect(replayed.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.toolName)).toEqual(['calculate', 'get_weather']);
  });

  it('continues a stored response with previous_response_id', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Warm.' }]);
    const openai = await client(model);
    const first = await openai.responses.create({ model: 'test/scripted', input: 'Weather?', tools: [weather] });
    const call = first.output[0];
    if (call?.type !== 'function_call') throw new Error('no call');
    const second = await openai.responses.create({
      model: 'test/scripted',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '25 C' }],
      tools: [weather],
    });
    expect(second.output_text).toBe('Warm.');
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    await expect(openai.responses.create({ model: 'test/scripted', previous_response_id: 'resp_unknown', input: 'x' })).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
  });

  it('does not keep a response sent with store: false', async () => {
    const openai = await client(createScriptedModel([{ text: 'A' }]));
    const first = await openai.responses.create({ model: 'test/scripted', input: 'x', store: false });
    await expect(openai.responses.create({ model: 'test/scripted', previous_response_id: first.id, input: 'y' })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(openai.responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('responses.retrieve() returns a stored response, streamed or not', async () => {
    const openai = await client(createScriptedModel([{ text: 'Stored.' }, { text: 'Streamed.' }]));
    const created = await openai.responses.create({ model: 'test/scripted', input: 'x' });
    const retrieved = await openai.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, status: 'completed', output_text: 'Stored.' });
    const streamed = await openai.responses.stream({ model: 'test/scripted', input: 'y' }).finalResponse();
    expect((await openai.responses.retrieve(streamed.id)).output_text).toBe('Streamed.');
    await expect(openai.responses.retrieve('resp_unknown')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers a hosted tool type with a BadRequestError naming it, and an unknown model with NotFoundError', async () => {
    const openai = await client(createScriptedModel([]));
    const error = await openai.responses.create({ model: 'test/scripted', input: 'x', tools: [{ type: 'web_search' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain("'web_search'");
    await expect(openai.responses.create({ model: 'nowhere/model', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('a model failing mid-stream ends the stream with error and response.failed; the gateway serves the next request', async () => {
    const openai = await client(
      createScriptedModel([{ events: [{ type: 'text-delta', delta: 'partial' }, { type: 'error', error: new Error('upstream reset') }] }, { text: 'fine' }]),
    );
    const stream = openai.responses.stream({ model: 'test/scripted', input: 'x' });
    await expect(stream.finalResponse()).rejects.toBeInstanceOf(OpenAI.APIError);
    const next = await openai.responses.create({ model: 'test/scripted', input: 'again' });
    expect(next.output_text).toBe('fine');
  });

  it('a described function without parameters named like a server tool is a 400 with the Responses form of the fix', async () => {
    const openai = await client(createScriptedModel([]));
    const error = await openai.responses
      .create({ model: 'test/scripted', input: 'x', tools: [{ type: 'function', name: 'calculate', description: 'mine', parameters: null, strict: null }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ code: 'ambiguous_tool', param: 'tools[0]' });
    expect((error as Error).message).toContain('{ "type": "function", "name": "calculate" }');
  });

  it('the AI SDK (store on by default) sends item_reference for earlier text; the gateway resolves it from the response store', async () => {
    const model = createScriptedModel([{ text: 'Let me look.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lima' } }] }, { text: 'Lima: 18 C.' }]);
    const started = await startGateway(model);
    server = started.server;
    const bodies: unknown[] = [];
    const openai = createOpenAI({
      apiKey: 'unused',
      baseURL: started.baseURL,
      fetch: async (url, init) => {
        bodies.push(typeof init?.body === 'string' ? JSON.parse(init.body) : null);
        return fetch(url, init);
      },
    });
    const result = await generateText({
      model: openai('test/scripted'),
      prompt: 'Weather in Lima?',
      tools: { get_weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }), execute: () => Promise.resolve('18 C') }) },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Lima: 18 C.');
    expect(JSON.stringify(bodies[1])).toContain('item_reference');
    expect(model.requests[1]?.messages.find((m) => m.role === 'assistant')).toMatchObject({ content: 'Let me look.', toolCalls: [{ name: 'get_weather' }] });
  });

  it('a client that goes away mid-stream aborts the model call', async () => {
    let aborted = false;
    const model = createScriptedModel([
      (request) =>
        new Promise((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    ]);
    const started = await startGateway(model);
    server = started.server;
    const controller = new AbortController();
    const pending = fetch(`${started.baseURL}/responses`, { method: 'POST', body: JSON.stringify({ model: 'test/scripted', input: 'x', stream: true }), signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => aborted, { timeout: 2000 }).toBe(true);
  });

  it('applies the keys: authentication, models and tools per key, the rate limit, and stored responses stay with their key', async () => {
    const keys = [
      { id: 'limited', keyHash: hashApiKey('sk-limited'), models: ['test/scripted'], tools: [], requestsPerMinute: 3 },
      { id: 'other', keyHash: hashApiKey('sk-other') },
    ];
    const started = await startGateway(createScriptedModel([{ text: 'first' }, { text: 'second' }]), { keys });
    server = started.server;
    const make = (apiKey: string): OpenAI => new OpenAI({ apiKey, baseURL: started.baseURL, maxRetries: 0 });
    await expect(make('sk-wrong').responses.create({ model: 'test/scripted', input: 'x' })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(make('sk-limited').responses.create({ model: 'test/other', input: 'x' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(make('sk-limited').responses.create({ model: 'test/scripted', input: 'x', tools: [{ type: 'function', name: 'calculate' } as unknown as FunctionTool] })).rejects.toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
    const first = await make('sk-other').responses.create({ model: 'test/scripted', input: 'x' });
    // Another key cannot continue it.
    await expect(make('sk-limited').responses.create({ model: 'test/scripted', previous_response_id: first.id, input: 'y' })).rejects.toMatchObject({ code: 'previous_response_not_found' });
    await expect(make('sk-limited').responses.create({ model: 'test/scripted', input: 'y' })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('passes parallel_tool_calls, tool_choice, text.format and max_output_tokens to the model', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'A' } }] }, { text: '{"a":1}' }]);
    const openai = await client(model);
    const one = await openai.responses.create({ model: 'test/scripted', input: 'x', tools: [weather], parallel_tool_calls: false, tool_choice: { type: 'function', name: 'get_weather' } });
    expect(one.output.filter((item) => item.type === 'function_call')).toHaveLength(1);
    expect(model.requests[0]).toMatchObject({ parallelToolCalls: false, toolChoice: { type: 'tool', name: 'get_weather' } });
    const json = await openai.responses.create({
      model: 'test/scripted',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false }, strict: true } },
      max_output_tokens: 50,
    });
    expect(json.output_text).toBe('{"a":1}');
    expect(model.requests[1]).toMatchObject({ responseFormat: { type: 'json', name: 'answer' }, maxOutputTokens: 50 });
  });
});
