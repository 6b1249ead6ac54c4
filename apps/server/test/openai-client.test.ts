import { createScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

let server: ToolwireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function client(model: Parameters<typeof startGateway>[0], config: Parameters<typeof startGateway>[1] = {}, apiKey = 'unused') {
  const started = await startGateway(model, config);
  server = started.server;
  return new OpenAI({ apiKey, baseURL: started.baseURL, maxRetries: 0 });
}

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('the official openai client', () => {
  it('create() gets a chat.completion with a chatcmpl- id, an integer created and the requested model', async () => {
    const openai = await client(createScriptedModel([{ text: 'Hello!', usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } }]));
    const completion = await openai.chat.completions.create({ model: 'test/scripted', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(completion.model).toBe('test/scripted');
    expect(completion.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello!', refusal: null }, finish_reason: 'stop' });
    expect(completion.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  });

  it('create() gets client tool calls with call_ ids, JSON string arguments, content null and finish reason tool_calls', async () => {
    const openai = await client(createScriptedModel([{ toolCalls: [{ id: 'x1', name: 'get_weather', arguments: { city: 'Paris' } }] }]));
    const completion = await openai.chat.completions.create({ model: 'test/scripted', messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool] });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.id).toMatch(/^call_/);
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
  });

  it('stream() with finalChatCompletion() assembles parallel calls, each with its full arguments', async () => {
    const openai = await client(
      createScriptedModel(
        [
          {
            toolCalls: [
              { name: 'get_weather', arguments: { city: 'Paris, the capital of France' } },
              { name: 'get_weather', arguments: { city: 'Berlin' } },
            ],
          },
        ],
        { chunkSize: 3 },
      ),
    );
    const stream = openai.chat.completions.stream({ model: 'test/scripted', messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool] });
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', (event) => done.push(event.arguments));
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    expect(calls.map((c): unknown => c.type === 'function' && JSON.parse(c.function.arguments))).toEqual([{ city: 'Paris, the capital of France' }, { city: 'Berlin' }]);
    expect(done.map((a): unknown => JSON.parse(a))).toEqual([{ city: 'Paris, the capital of France' }, { city: 'Berlin' }]);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('stream() fires content events and, with include_usage, reports usage', async () => {
    const openai = await client(createScriptedModel([{ text: 'The quick brown fox.', usage: { inputTokens: 9, outputTokens: 5, totalTokens: 14 } }], { chunkSize: 4 }));
    const stream = openai.chat.completions.stream({
      model: 'test/scripted',
      messages: [{ role: 'user', content: 'say it' }],
      stream_options: { include_usage: true },
    });
    let content = '';
    stream.on('content', (delta) => (content += delta));
    const final = await stream.finalChatCompletion();
    expect(content).toBe('The quick brown fox.');
    expect(final.choices[0]!.message.content).toBe('The quick brown fox.');
    expect(final.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 });
  });

  it('runTools() runs the client tool, sends the result back through the gateway, and gets the final answer', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is sunny in Paris.' }]);
    const openai = await client(model);
    const runner = openai.chat.completions.runTools({
      model: 'test/scripted',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather in a city',
            parameters: weatherTool.function.parameters,
            parse: JSON.parse,
            function: (args: { city: string }) => `sunny in ${args.city}`,
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('It is sunny in Paris.');
    const second = model.requests[1]!.messages;
    expect(second.at(-1)).toMatchObject({ role: 'tool', toolName: 'get_weather', content: 'sunny in Paris' });
  });

  it('runTools() streaming also completes the round trip', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold in Oslo.' }], { chunkSize: 2 });
    const openai = await client(model);
    const runner = openai.chat.completions.runTools({
      model: 'test/scripted',
      stream: true,
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weatherTool.function.parameters, parse: JSON.parse, function: () => 'cold' } }],
    });
    expect(await runner.finalContent()).toBe('Cold in Oslo.');
  });

  it('gets the final answer when the gateway runs a server tool itself', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { text: 'The answer is 42.' }]);
    const openai = await client(model);
    const completion = await openai.chat.completions.create({
      model: 'test/scripted',
      messages: [{ role: 'user', content: 'what is 6*7?' }],
      tools: [{ type: 'function', function: { name: 'calculate' } }],
    });
    expect(completion.choices[0]!.message).toMatchObject({ content: 'The answer is 42.' });
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: '{"expression":"6 * 7","result":"42"}' });
    // The model saw the server's own definition of the tool, not the client's bare name.
    expect(model.requests[0]!.tools![0]).toMatchObject({ name: 'calculate', inputSchema: { required: ['expression'] } });
  });

  it('in a turn that calls a server tool and a client tool, gets its own call, and the model later sees the whole turn', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'srv', name: 'calculate', arguments: { expression: '6 * 7' } }, { id: 'cli', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: '42, and cold in Oslo.' },
    ]);
    const openai = await client(model);
    const tools = [{ type: 'function' as const, function: { name: 'calculate' } }, weatherTool];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: '6*7, and the weather in Oslo?' }];
    const first = await openai.chat.completions.create({ model: 'test/scripted', messages, tools });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(calls.map((c) => (c.type === 'function' ? c.function.name : c.type))).toEqual(['get_weather']);

    // The client answers its call and sends the conversation back, as every client does.
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: calls[0]!.id, content: 'Cold.' });
    const second = await openai.chat.completions.create({ model: 'test/scripted', messages, tools });
    expect(second.choices[0]!.message.content).toBe('42, and cold in Oslo.');
    const seen = model.requests[1]!.messages;
    expect(seen.slice(1)).toEqual([
      expect.objectContaining({ role: 'assistant', toolCalls: [expect.objectContaining({ id: 'srv', name: 'calculate' }), expect.objectContaining({ id: calls[0]!.id, name: 'get_weather' })] }),
      expect.objectContaining({ role: 'tool', toolCallId: 'srv', content: '{"expression":"6 * 7","result":"42"}' }),
      expect.objectContaining({ role: 'tool', toolCallId: calls[0]!.id, content: 'Cold.' }),
    ]);
  });

  it('gets a BadRequestError (400, not retried) for a validation failure', async () => {
    const openai = await client(createScriptedModel([]));
    const error = await openai.chat.completions.create({ model: 'test/scripted', messages: [{ role: 'user', content: 'x' }], tools: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'tools', code: 'empty_array', type: 'invalid_request_error' });
  });

  it('gets a NotFoundError naming the providers for an unknown prefix', async () => {
    const openai = await client(createScriptedModel([]));
    const error = await openai.chat.completions.create({ model: 'nope/x', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).toContain('test/');
  });

  it('gets an APIError from stream() when the upstream fails mid-stream', async () => {
    const openai = await client(createScriptedModel([{ events: [{ type: 'text-delta', delta: 'partial' }, { type: 'error', error: new Error('boom') }] }]));
    const stream = openai.chat.completions.stream({ model: 'test/scripted', messages: [{ role: 'user', content: 'x' }] });
    await expect(stream.finalChatCompletion()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('gets AuthenticationError, NotFoundError (a model the key may not use) and RateLimitError from the key rules', async () => {
    const keys = [
      { id: 'limited', keyHash: hashApiKey('sk-limited'), models: ['test/scripted'], tools: [], requestsPerMinute: 1 },
    ];
    const model = createScriptedModel([{ text: 'ok' }]);
    const started = await startGateway(model, { keys });
    server = started.server;
    const make = (apiKey: string) => new OpenAI({ apiKey, baseURL: started.baseURL, maxRetries: 0 });
    const ask = (apiKey: string, body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
      make(apiKey).chat.completions.create({ model: 'test/scripted', messages: [{ role: 'user', content: 'x' }], ...body }).catch((e: unknown) => e);

    expect(await ask('sk-wrong')).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(await ask('sk-limited', { model: 'test/other' })).toBeInstanceOf(OpenAI.NotFoundError);
    const limited = started.baseURL;
    expect(limited).toContain('127.0.0.1');
    const rate = await ask('sk-limited');
    expect(rate).toBeInstanceOf(OpenAI.RateLimitError);
    expect((rate as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('lists only the models a key may use', async () => {
    const started = await startGateway(createScriptedModel([]), { keys: [{ id: 'k', keyHash: hashApiKey('sk-k'), models: ['other/*'] }] });
    server = started.server;
    const page = await new OpenAI({ apiKey: 'sk-k', baseURL: started.baseURL, maxRetries: 0 }).models.list();
    expect(page.data).toEqual([]);
  });

  it('gets PermissionDeniedError for a server tool the key may not use', async () => {
    const started = await startGateway(createScriptedModel([]), { keys: [{ id: 'k', keyHash: hashApiKey('sk-k'), tools: ['get_current_time'] }] });
    server = started.server;
    const openai = new OpenAI({ apiKey: 'sk-k', baseURL: started.baseURL, maxRetries: 0 });
    const error = await openai.chat.completions
      .create({ model: 'test/scripted', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'calculate' } }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((error as Error).message).toContain('calculate');
  });
});
