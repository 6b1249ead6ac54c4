import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { callsThenAnswer, MODEL_PATHS, offeredToolNames, useClientSuite, weatherParameters } from './client-suite.ts';

// The official `openai` client against the gateway's bin, on every model path.
const suite = useClientSuite();
const client = (): OpenAI => new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });

const weather: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather in a city', parameters: weatherParameters },
};
const population: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_population', description: 'Population of a city', parameters: weatherParameters },
};
const ask = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }];
const namesOf = (calls: OpenAI.ChatCompletionMessageToolCall[] | undefined): string[] => (calls ?? []).map((c) => (c.type === 'function' ? c.function.name : c.type));
const argsOf = (calls: OpenAI.ChatCompletionMessageToolCall[] | undefined): unknown[] => (calls ?? []).map((c): unknown => (c.type === 'function' ? JSON.parse(c.function.arguments) : undefined));

describe.each(MODEL_PATHS)('openai client on $model', ({ kind, model, missingModel }) => {
  it('create() without tools gets the text and the usage', async () => {
    suite.upstream.script = () => ({ text: 'Hello there, how can I help?' });
    const completion = await client().chat.completions.create({ model, messages: ask('hi') });
    expect(completion.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello there, how can I help?' }, finish_reason: 'stop' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 57, completion_tokens: 17, total_tokens: 74 });
    expect(completion.model).toBe(model);
  });

  it('create() with tool_choice auto gets the call with JSON arguments and finish_reason tool_calls', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Paris' } }], 'Sunny');
    const completion = await client().chat.completions.create({ model, messages: ask('weather in Paris?'), tools: [weather], tool_choice: 'auto' });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls?.[0]?.id).toMatch(/^call_/);
    expect(namesOf(choice.message.tool_calls)).toEqual(['get_weather']);
    expect(argsOf(choice.message.tool_calls)).toEqual([{ city: 'Paris' }]);
    expect(offeredToolNames(suite.chatRequests()[0]!)).toEqual(['get_weather']);
  });

  it('a streamed create() delivers the call in deltas that assemble to the arguments', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Rio de Janeiro' } }], 'Hot');
    const stream = await client().chat.completions.create({ model, messages: ask('weather in Rio?'), tools: [weather], stream: true, stream_options: { include_usage: true } });
    let name = '';
    let args = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Rio de Janeiro' });
    expect(finish).toBe('tool_calls');
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it('tool_choice required gets a call', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_population', arguments: { city: 'Lagos' } }], 'Many');
    const completion = await client().chat.completions.create({ model, messages: ask('how many people live in Lagos?'), tools: [weather, population], tool_choice: 'required' });
    expect(namesOf(completion.choices[0]!.message.tool_calls)).toEqual(['get_population']);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    if (kind === 'openai') expect(suite.chatRequests()[0]!.body.tool_choice).toBe('required');
    if (kind === 'ollama-text') expect(suite.chatRequests()[0]!.system).toMatch(/must call/i);
  });

  it('tool_choice naming a tool gets a call to that tool', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Oslo' } }], 'Cold');
    const completion = await client().chat.completions.create({
      model,
      messages: ask('tell me about Oslo'),
      tools: [population, weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(namesOf(completion.choices[0]!.message.tool_calls)).toEqual(['get_weather']);
    expect(argsOf(completion.choices[0]!.message.tool_calls)).toEqual([{ city: 'Oslo' }]);
    if (kind === 'openai') expect(suite.chatRequests()[0]!.body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    if (kind === 'ollama-text') expect(suite.chatRequests()[0]!.system).toMatch(/must call[^\n]*get_weather/i);
  });

  it('tool_choice none gets text even from a model that calls anyway', async () => {
    // A disobedient model: calls whenever it can see the tool, in whatever form it knows.
    suite.upstream.script = () => ({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const completion = await client().chat.completions.create({ model, messages: ask('just chat'), tools: [weather], tool_choice: 'none' });
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    if (kind === 'openai') expect(suite.chatRequests()[0]!.body.tool_choice).toBe('none');
  });

  it('tool_choice allowed_tools offers the model only the allowed tools', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_population', arguments: { city: 'Lima' } }], 'Ten million');
    const completion = await client().chat.completions.create({
      model,
      messages: ask('Lima?'),
      tools: [weather, population],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_population' } }] } },
    });
    expect(namesOf(completion.choices[0]!.message.tool_calls)).toEqual(['get_population']);
    expect(offeredToolNames(suite.chatRequests()[0]!)).toEqual(['get_population']);
  });

  it('parallel_tool_calls false returns one call even when the model makes two', async () => {
    suite.upstream.script = callsThenAnswer(
      [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Berlin' } },
      ],
      'Both mild',
    );
    const stream = client().chat.completions.stream({ model, messages: ask('Paris and Berlin?'), tools: [weather], parallel_tool_calls: false });
    const final = await stream.finalChatCompletion();
    expect(argsOf(final.choices[0]!.message.tool_calls)).toEqual([{ city: 'Paris' }]);
    if (kind === 'openai') expect(suite.chatRequests()[0]!.body.parallel_tool_calls).toBe(false);
  });

  it('a two-turn round trip sends the tool result upstream and gets the answer', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Nairobi' } }], 'Warm in Nairobi');
    const openai = client();
    const messages = ask('weather in Nairobi?');
    const first = await openai.chat.completions.create({ model, messages, tools: [weather] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '24°C, clear' });
    const second = await openai.chat.completions.create({ model, messages, tools: [weather] });
    expect(second.choices[0]!.message.content).toBe(`Warm in Nairobi [${suite.chatRequests()[1]!.toolResults.join(' | ')}]`);
    expect(suite.chatRequests()[1]!.toolResults[0]).toContain('24°C, clear');
    if (kind === 'openai') expect(suite.chatRequests()[1]!.body.messages).toContainEqual(expect.objectContaining({ role: 'tool', tool_call_id: call.id, content: '24°C, clear' }));
  });

  it('runTools() runs the client function and returns the final answer', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Cairo' } }], 'Hot in Cairo');
    const runner = client().chat.completions.runTools({
      model,
      messages: ask('weather in Cairo?'),
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Current weather in a city', parameters: weatherParameters, parse: JSON.parse, function: (args: { city: string }) => `38°C in ${args.city}` } }],
    });
    expect(await runner.finalContent()).toContain('Hot in Cairo');
    expect(await runner.finalContent()).toContain('38°C in Cairo');
    expect(suite.chatRequests()).toHaveLength(2);
  });

  it('runTools() streaming completes the same round trip', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'get_weather', arguments: { city: 'Quito' } }], 'Mild in Quito');
    const runner = client().chat.completions.runTools({
      model,
      stream: true,
      messages: ask('weather in Quito?'),
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Current weather in a city', parameters: weatherParameters, parse: JSON.parse, function: () => '15°C' } }],
    });
    expect(await runner.finalContent()).toContain('Mild in Quito');
  });

  it('stream() + finalChatCompletion() assembles parallel calls and fires the arguments.done events', async () => {
    suite.upstream.script = callsThenAnswer(
      [
        { name: 'get_weather', arguments: { city: 'Buenos Aires' } },
        { name: 'get_population', arguments: { city: 'Montevideo' } },
      ],
      'Done',
    );
    const stream = client().chat.completions.stream({ model, messages: ask('two cities'), tools: [weather, population] });
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', (event) => done.push(event.name));
    const final = await stream.finalChatCompletion();
    expect(namesOf(final.choices[0]!.message.tool_calls)).toEqual(['get_weather', 'get_population']);
    expect(argsOf(final.choices[0]!.message.tool_calls)).toEqual([{ city: 'Buenos Aires' }, { city: 'Montevideo' }]);
    expect(done).toEqual(['get_weather', 'get_population']);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('stream() fires content events for a text answer', async () => {
    suite.upstream.script = () => ({ text: 'The quick brown fox jumps over the lazy dog.' });
    const stream = client().chat.completions.stream({ model, messages: ask('say it') });
    let content = '';
    stream.on('content', (delta) => (content += delta));
    const final = await stream.finalChatCompletion();
    expect(content).toBe('The quick brown fox jumps over the lazy dog.');
    expect(final.choices[0]!.message.content).toBe(content);
  });

  it('a tool_choice naming a tool that is not offered is a BadRequestError', async () => {
    const error = await client()
      .chat.completions.create({ model, messages: ask('x'), tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'tool_choice.function.name' });
    expect(suite.chatRequests()).toHaveLength(0);
  });

  it('an upstream 400 is a BadRequestError with its message', async () => {
    suite.upstream.script = () => ({ error: { status: 400, message: "This model's maximum context length is 128000 tokens.", code: 'context_length_exceeded' } });
    const error = await client()
      .chat.completions.create({ model, messages: ask('x') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('maximum context length');
  });

  it('a model the upstream does not have is a NotFoundError', async () => {
    const error = await client()
      .chat.completions.create({ model: missingModel, messages: ask('x') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).toContain(missingModel.slice(missingModel.indexOf('/') + 1));
  });
});
