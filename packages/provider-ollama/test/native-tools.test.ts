import { collectStream } from '@toolwire/core';
import type { ChatStreamEvent, FunctionToolSpec, Message } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import type { OllamaChatSettings } from '../src/index.ts';
import { startFakeOllama } from './fake-ollama.ts';
import type { ChatBody, FakeOllama, FakeTurn } from './fake-ollama.ts';

const weather: FunctionToolSpec = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const time: FunctionToolSpec = {
  type: 'function',
  name: 'get_time',
  description: 'Current time in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const ask: Message[] = [{ role: 'user', content: 'Weather and time in Paris and Rome?' }];

let turns: ((body: ChatBody) => FakeTurn)[] = [];
let server: FakeOllama;

beforeAll(async () => {
  server = await startFakeOllama({
    'qwen3:8b': {
      capabilities: ['completion', 'tools', 'thinking'],
      // The n-th chat request since the last `script()` gets the n-th scripted turn.
      reply: (body) => {
        const index = server.chatBodies().length - 1;
        const turn = turns[index] ?? turns.at(-1);
        return turn === undefined ? { content: 'Hello.' } : turn(body);
      },
    },
  });
});
afterAll(() => server.close());

function model(settings?: OllamaChatSettings) {
  return createOllama({ host: server.host }).chat('qwen3:8b', settings);
}

function script(...replies: ((body: ChatBody) => FakeTurn)[]): void {
  turns = replies;
  server.requests.length = 0;
}

const call = (name: string, args: unknown) => ({ function: { name, arguments: args } });

describe('native tools on a tools-capable model', () => {
  it('sends tools in the nested function shape and returns one call with a generated call_ id', async () => {
    script(() => ({ tool_calls: [{ id: 'call_abcd1234', function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } }] }));
    const response = await model().generate({ messages: ask, tools: [weather] });

    const [body] = server.chatBodies();
    expect(body?.stream).toBe(false);
    expect(body?.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Current weather in a city.', parameters: weather.inputSchema } },
    ]);
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(response.toolCalls[0]!.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usage).toEqual({ inputTokens: 26, outputTokens: 12, totalTokens: 38 });
    expect(response.message).toEqual({ role: 'assistant', content: '', toolCalls: response.toolCalls });
  });

  it('returns several calls of one turn, each with its own id', async () => {
    script(() => ({
      tool_calls: [call('get_weather', { city: 'Paris' }), call('get_weather', { city: 'Rome' }), call('get_time', { city: 'Rome' })],
    }));
    const response = await model().generate({ messages: ask, tools: [weather, time] });
    expect(response.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Rome' }],
      ['get_time', { city: 'Rome' }],
    ]);
    expect(new Set(response.toolCalls.map((c) => c.id)).size).toBe(3);
  });

  it('streams NDJSON as text deltas, and each whole call as start, one delta and tool-call', async () => {
    script(() => ({ content: 'Let me check both cities.', tool_calls: [call('get_weather', { city: 'Paris' }), call('get_time', { city: 'Rome' })] }));
    const events: ChatStreamEvent[] = [];
    for await (const event of model().stream({ messages: ask, tools: [weather, time] })) events.push(event);

    expect(server.chatBodies()[0]?.stream).toBe(true);
    const text = events.filter((e) => e.type === 'text-delta').map((e) => e.delta);
    expect(text.length).toBeGreaterThan(1);
    expect(text.join('')).toBe('Let me check both cities.');
    const callEvents = events.filter((e) => e.type.startsWith('tool-call'));
    expect(callEvents.map((e) => e.type)).toEqual([
      'tool-call-start', 'tool-call-delta', 'tool-call',
      'tool-call-start', 'tool-call-delta', 'tool-call',
    ]);
    const first = callEvents[0] as Extract<ChatStreamEvent, { type: 'tool-call-start' }>;
    expect(callEvents[1]).toEqual({ type: 'tool-call-delta', id: first.id, argumentsDelta: '{"city":"Paris"}' });
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { inputTokens: 26, outputTokens: 12, totalTokens: 38 },
      modelId: 'qwen3:8b',
    });
  });

  it('reads a call the model wrote as text when Ollama left tool_calls empty (ollama/ollama#12174), streamed or not, with a warning', async () => {
    for (const content of ['{"name": "get_weather", "arguments": {"city": "Paris"}}', '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>']) {
      script(() => ({ content }));
      const generated = await model().generate({ messages: ask, tools: [weather, time] });
      expect(generated).toMatchObject({ text: '', finishReason: 'tool-calls', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
      expect(generated.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining('wrote its call to "get_weather" as text') })]);

      script(() => ({ content }));
      const events: ChatStreamEvent[] = [];
      for await (const event of model().stream({ messages: ask, tools: [weather, time] })) events.push(event);
      expect(events.filter((e) => e.type === 'text-delta')).toEqual([]);
      expect(events.map((e) => e.type)).toEqual(['warning', 'tool-call-start', 'tool-call-delta', 'tool-call', 'finish']);
      expect(events.at(-1)).toMatchObject({ finishReason: 'tool-calls' });
    }
  });

  it('reads no call from an answer constrained to JSON (responseFormat or the format setting): it is data', async () => {
    const content = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
    for (const [settings, responseFormat] of [[{}, { type: 'json' as const }], [{ format: 'json' as const }, undefined]] as const) {
      script(() => ({ content }));
      expect(await model(settings).generate({ messages: ask, tools: [weather], responseFormat })).toMatchObject({ text: content, toolCalls: [] });
      script(() => ({ content }));
      const response = await collectStream(model(settings).stream({ messages: ask, tools: [weather], responseFormat }));
      expect(response).toMatchObject({ text: content, toolCalls: [] });
    }
  });

  it('keeps JSON text that is no call to an offered tool as text, sent whole at the end', async () => {
    for (const content of ['{"answer": 42}', '{"name": "delete_everything", "arguments": {}}', '<tool_call>not json</tool_call>']) {
      script(() => ({ content }));
      expect(await model().generate({ messages: ask, tools: [weather] })).toMatchObject({ text: content, toolCalls: [], finishReason: 'stop' });
      const response = await collectStream(model().stream({ messages: ask, tools: [weather] }));
      expect(response).toMatchObject({ text: content, toolCalls: [], finishReason: 'stop' });
    }
  });

  it('streams thinking as reasoning-delta events and passes the think setting', async () => {
    script(() => ({ thinking: 'The user wants Paris weather.', content: 'Checking.', tool_calls: [call('get_weather', { city: 'Paris' })] }));
    const events: ChatStreamEvent[] = [];
    for await (const event of model({ think: 'high' }).stream({ messages: ask, tools: [weather] })) events.push(event);
    expect(server.chatBodies()[0]?.think).toBe('high');
    expect(events.filter((e) => e.type === 'reasoning-delta').map((e) => e.delta).join('')).toBe('The user wants Paris weather.');
    const collected = await collectStream(model({ think: 'high' }).stream({ messages: ask, tools: [weather] }));
    expect(collected.reasoning).toBe('The user wants Paris weather.');
    expect(collected.message.reasoning).toBe('The user wants Paris weather.');
  });

  it('returns thinking as reasoning from generate', async () => {
    script(() => ({ thinking: 'Simple greeting.', content: 'Hi!' }));
    const response = await model({ think: true }).generate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(response).toMatchObject({ text: 'Hi!', reasoning: 'Simple greeting.', finishReason: 'stop' });
  });

  it('parses arguments sent as a JSON string and marks unparseable ones invalid', async () => {
    script(() => ({ tool_calls: [call('get_weather', '{"city":"Oslo"}'), call('get_time', '{"city": Oslo')] }));
    const response = await model().generate({ messages: ask, tools: [weather, time] });
    expect(response.toolCalls[0]).toMatchObject({ name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(response.toolCalls[1]).toMatchObject({ name: 'get_time', arguments: {}, invalid: { rawArguments: '{"city": Oslo' } });
  });

  it('maps settings and request fields onto think, keep_alive, options and format', async () => {
    script(() => ({ content: '{"ok":true}' }));
    await model({ keepAlive: '10m', options: { num_ctx: 8192, temperature: 0.9 } }).generate({
      messages: [{ role: 'user', content: 'json please' }],
      temperature: 0.1,
      maxOutputTokens: 64,
      topP: 0.5,
      seed: 7,
      stop: ['END'],
      responseFormat: { type: 'json', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
    });
    const [body] = server.chatBodies();
    expect(body?.keep_alive).toBe('10m');
    expect(body?.options).toEqual({ num_ctx: 8192, temperature: 0.1, num_predict: 64, top_p: 0.5, seed: 7, stop: ['END'] });
    expect(body?.format).toEqual({ type: 'object', properties: { ok: { type: 'boolean' } } });
    expect(body?.tools).toBeUndefined();
  });

  it('lets providerOptions.ollama override the model settings for one request', async () => {
    script(() => ({ content: 'ok' }));
    await model({ think: true, format: 'json' }).generate({
      messages: [{ role: 'user', content: 'hi' }],
      providerOptions: { ollama: { think: false, format: { type: 'object' } } },
    });
    expect(server.chatBodies()[0]).toMatchObject({ think: false, format: { type: 'object' } });
  });

  it('sends per-provider and per-request headers', async () => {
    script(() => ({ content: 'ok' }));
    await createOllama({ host: server.host, headers: { 'x-proxy-key': 'p' } })
      .chat('qwen3:8b')
      .generate({ messages: [{ role: 'user', content: 'hi' }], headers: { 'x-request-id': 'r1' } });
    const chat = server.requests.find((r) => r.path === '/api/chat');
    expect(chat?.headers['x-proxy-key']).toBe('p');
    expect(chat?.headers['x-request-id']).toBe('r1');
  });
});

describe('history round trip', () => {
  it('sends earlier calls with object arguments and results with tool_name matched from the call', async () => {
    script(
      () => ({ tool_calls: [call('get_weather', { city: 'Paris' }), call('get_time', { city: 'Paris' })] }),
      () => ({ tool_calls: [call('get_weather', { city: 'Rome' })] }),
      () => ({ content: 'Paris: sunny, 14:00. Rome: rain.' }),
    );
    const m = model();
    const messages: Message[] = [...ask];
    const first = await m.generate({ messages, tools: [weather, time] });
    messages.push(first.message);
    for (const c of first.toolCalls) messages.push({ role: 'tool', toolCallId: c.id, content: `${c.name}: ok` });
    const second = await m.generate({ messages, tools: [weather, time] });
    messages.push(second.message);
    messages.push({ role: 'tool', toolCallId: second.toolCalls[0]!.id, content: 'rain' });
    const third = await m.generate({ messages, tools: [weather, time] });

    expect(third.text).toBe('Paris: sunny, 14:00. Rome: rain.');
    const ids = [...first.toolCalls, ...second.toolCalls].map((c) => c.id);
    expect(new Set(ids).size).toBe(3);

    const sent = server.chatBodies()[2]!.messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool']);
    expect(sent[1]?.tool_calls).toEqual([
      { id: ids[0], function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } },
      { id: ids[1], function: { index: 1, name: 'get_time', arguments: { city: 'Paris' } } },
    ]);
    expect(sent[2]).toEqual({ role: 'tool', content: 'get_weather: ok', tool_name: 'get_weather', tool_call_id: ids[0] });
    expect(sent[3]).toMatchObject({ tool_name: 'get_time', tool_call_id: ids[1] });
    expect(sent[5]).toMatchObject({ tool_name: 'get_weather', content: 'rain', tool_call_id: ids[2] });
  });

  it('turns "" arguments from an OpenAI-style history into {}', async () => {
    script(() => ({ content: 'done' }));
    const history: Message[] = [
      { role: 'user', content: 'ping' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'ping', arguments: '' as unknown as Record<string, unknown> }] },
      { role: 'tool', toolCallId: 'call_1', content: 'pong' },
    ];
    await model().generate({ messages: history, tools: [{ ...weather, name: 'ping' }] });
    const sent = server.chatBodies()[0]!.messages;
    expect(sent[1]?.tool_calls?.[0]?.function.arguments).toEqual({});
    expect(sent[2]?.tool_name).toBe('ping');
  });

  it('passes user images through as base64', async () => {
    script(() => ({ content: 'A red pixel.' }));
    const png = Buffer.from('fake-png-bytes').toString('base64');
    await model().generate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', image: `data:image/png;base64,${png}`, mediaType: 'image/png' },
            { type: 'image', image: png },
          ],
        },
      ],
    });
    expect(server.chatBodies()[0]!.messages[0]).toEqual({ role: 'user', content: 'What is this?', images: [png, png] });
  });
});

describe('toolChoice and parallelToolCalls, which Ollama ignores', () => {
  it("'none' sends no tools", async () => {
    script(() => ({ content: 'Paris is sunny, I guess.' }));
    const response = await model().generate({ messages: ask, tools: [weather], toolChoice: 'none' });
    expect(server.chatBodies()[0]!.tools).toBeUndefined();
    expect(response.toolCalls).toEqual([]);
  });

  it('a named tool is the only tool sent', async () => {
    script(() => ({ tool_calls: [call('get_time', { city: 'Rome' })] }));
    const response = await model().generate({ messages: ask, tools: [weather, time], toolChoice: { type: 'tool', name: 'get_time' } });
    expect(server.chatBodies()[0]!.tools?.map((t) => t.function.name)).toEqual(['get_time']);
    expect(response.toolCalls.map((c) => c.name)).toEqual(['get_time']);
    expect(server.chatBodies()).toHaveLength(1);
  });

  it("'required' retries once with a format constraint when the model answers in prose", async () => {
    script(
      () => ({ content: 'I think it is sunny in Paris.' }),
      () => ({ content: '{"name": "get_weather", "arguments": {"city": "Paris"}}' }),
    );
    const response = await model().generate({ messages: ask, tools: [weather, time], toolChoice: 'required' });
    const [first, retry] = server.chatBodies();
    expect(first!.format).toBeUndefined();
    expect(retry!.format).toEqual({
      anyOf: [
        { type: 'object', properties: { name: { type: 'string', enum: ['get_weather'] }, arguments: weather.inputSchema }, required: ['name', 'arguments'] },
        { type: 'object', properties: { name: { type: 'string', enum: ['get_time'] }, arguments: time.inputSchema }, required: ['name', 'arguments'] },
      ],
    });
    expect(retry!.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(retry!.messages.at(-1)!.content).toContain('"get_weather"');
    expect(response.text).toBe('');
    expect(response.toolCalls).toMatchObject([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usage).toEqual({ inputTokens: 52, outputTokens: 24, totalTokens: 76 });
    expect(response.warnings.map((w) => w.message).join(' ')).toContain('retried with a JSON Schema format constraint');
  });

  it('a named tool forces that tool: a call to another tool is dropped and the retry is constrained to the name', async () => {
    script(
      () => ({ tool_calls: [call('get_weather', { city: 'Rome' })] }),
      () => ({ content: '{"name":"get_time","arguments":{"city":"Rome"}}' }),
    );
    const response = await model().generate({ messages: ask, tools: [weather, time], toolChoice: { type: 'tool', name: 'get_time' } });
    expect(server.chatBodies()[1]!.format).toEqual({
      type: 'object',
      properties: { name: { type: 'string', enum: ['get_time'] }, arguments: time.inputSchema },
      required: ['name', 'arguments'],
    });
    expect(response.toolCalls).toMatchObject([{ name: 'get_time', arguments: { city: 'Rome' } }]);
    expect(response.warnings).toContainEqual(expect.objectContaining({ type: 'unsupported-tool', toolName: 'get_weather' }));
  });

  it("forcedToolCalls: 'format' constrains the first request and reads a call Ollama's parser already made", async () => {
    script(() => ({ tool_calls: [call('get_weather', { city: 'Lyon' })] }));
    const response = await model({ forcedToolCalls: 'format' }).generate({ messages: ask, tools: [weather], toolChoice: 'required' });
    expect(server.chatBodies()).toHaveLength(1);
    expect(server.chatBodies()[0]!.format).toMatchObject({ properties: { name: { enum: ['get_weather'] } } });
    expect(response.toolCalls).toMatchObject([{ name: 'get_weather', arguments: { city: 'Lyon' } }]);
  });

  it('streams a forced call: prose of the first attempt is held back and replaced by the constrained call', async () => {
    script(
      () => ({ thinking: 'Hmm.', content: 'It is probably sunny.' }),
      () => ({ content: '{"name": "get_weather", "arguments": {"city": "Paris"}}' }),
    );
    const events: ChatStreamEvent[] = [];
    for await (const event of model().stream({ messages: ask, tools: [weather], toolChoice: 'required' })) events.push(event);
    expect(events.filter((e) => e.type === 'text-delta')).toEqual([]);
    expect(events.filter((e) => e.type === 'reasoning-delta').map((e) => e.delta).join('')).toBe('Hmm.');
    expect(events.map((e) => e.type)).toEqual(['reasoning-delta', 'warning', 'tool-call-start', 'tool-call-delta', 'tool-call', 'finish']);
    expect(events.at(-1)).toMatchObject({ finishReason: 'tool-calls', usage: { totalTokens: 76 } });
  });

  it('streams a forced call the model made at once, releasing its text after the call', async () => {
    script(() => ({ content: 'Checking.', tool_calls: [call('get_weather', { city: 'Paris' })] }));
    const response = await collectStream(model().stream({ messages: ask, tools: [weather], toolChoice: 'required' }));
    expect(server.chatBodies()).toHaveLength(1);
    expect(response.text).toBe('Checking.');
    expect(response.toolCalls).toHaveLength(1);
  });

  it('reports a forced call that even the constrained retry did not produce', async () => {
    script(() => ({ content: 'No.' }), () => ({ content: '{"name": "get_wea', done_reason: 'length' }));
    const response = await model().generate({ messages: ask, tools: [weather], toolChoice: 'required' });
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('length');
    expect(response.warnings.at(-1)?.message).toContain('did not call "get_weather"');
  });

  it('parallelToolCalls: false keeps the first call, streamed or not', async () => {
    script(() => ({ tool_calls: [call('get_weather', { city: 'Paris' }), call('get_weather', { city: 'Rome' })] }));
    const generated = await model().generate({ messages: ask, tools: [weather], parallelToolCalls: false });
    expect(generated.toolCalls.map((c) => c.arguments)).toEqual([{ city: 'Paris' }]);
    const streamed = await collectStream(model().stream({ messages: ask, tools: [weather], parallelToolCalls: false }));
    expect(streamed.toolCalls.map((c) => c.arguments)).toEqual([{ city: 'Paris' }]);
  });

  it('rejects a named tool that is not offered before sending anything', async () => {
    script(() => ({ content: 'x' }));
    await expect(model().generate({ messages: ask, tools: [weather], toolChoice: { type: 'tool', name: 'nope' } })).rejects.toThrow(
      'Unknown tool "nope". Available tools: get_weather.',
    );
    expect(server.chatBodies()).toHaveLength(0);
  });
});
