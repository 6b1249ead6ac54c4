import { collectStream, StreamError } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { weatherTool } from './tools.ts';
import { callArgs, callsStream, callStart, completion, finishChunk, roleChunk, textStream, usageChunk } from './chat-wire.ts';
import { sseBody, useOpenAITestServer } from './openai-test-server.ts';


const server = useOpenAITestServer();

function model() {
  return createOpenAI({ baseURL: server().baseURL, apiKey: 'sk-test-key', maxRetries: 1 }).chat('gpt-4.1-mini');
}

async function drain(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('openai.chat generate', () => {
  it('sends the mapped request through the SDK and maps the text answer', async () => {
    server().reply({ kind: 'json', body: completion({ content: 'Hello there.' }) });
    const response = await model().generate({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], temperature: 0 });
    expect(response.text).toBe('Hello there.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage?.cachedInputTokens).toBe(64);
    const [request] = server().requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test-key');
    expect(request?.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0,
      stream: false,
    });
  });

  it('maps one call and parallel calls, with tools and tool choice on the wire', async () => {
    server().reply({
      kind: 'json',
      body: completion(
        {
          tool_calls: [
            { id: 'call_Paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_Rome', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        'tool_calls',
      ),
    });
    const response = await model().generate({ messages: [{ role: 'user', content: 'Paris and Rome?' }], tools: [weatherTool], toolChoice: 'required' });
    expect(response.toolCalls).toEqual([
      { id: 'call_Paris', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_Rome', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    expect(server().requests[0]?.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool.inputSchema } }],
      tool_choice: 'required',
    });
  });

  it('answers empty and malformed arguments without crashing', async () => {
    server().reply({
      kind: 'json',
      body: completion(
        {
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'now', arguments: '' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Par' } },
          ],
        },
        'tool_calls',
      ),
    });
    const response = await model().generate({ messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] });
    expect(response.toolCalls[0]).toEqual({ id: 'call_1', name: 'now', arguments: {} });
    expect(response.toolCalls[1]?.invalid?.rawArguments).toBe('{"city": "Par');
  });
});

describe('openai.chat with a compatible server that leaves the call in content (Ollama /v1 with qwen2.5-coder, vLLM without a tool parser)', () => {
  const asked = { messages: [{ role: 'user' as const, content: 'Paris?' }], tools: [weatherTool] };
  const bare = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
  const tagged = `<tool_call>\n${bare}\n</tool_call>`;

  it('reads an answer that is nothing but one call to an offered tool as that call, streamed or not, with a warning', async () => {
    for (const content of [bare, tagged]) {
      server().reply({ kind: 'json', body: completion({ content }) });
      const generated = await model().generate(asked);
      expect(generated).toMatchObject({ text: '', finishReason: 'tool-calls', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
      expect(generated.message.toolCalls).toEqual(generated.toolCalls);
      expect(generated.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining('wrote its call to "get_weather" as text') })]);

      const half = Math.floor(content.length / 2);
      server().reply({ kind: 'sse', frames: textStream([content.slice(0, half), content.slice(half)]).map((data) => ({ data })) });
      const events = await drain(model().stream(asked));
      expect(events.map((event) => event.type)).toEqual(['warning', 'tool-call-start', 'tool-call-delta', 'tool-call', 'finish']);
      expect(events.at(-1)).toMatchObject({ finishReason: 'tool-calls' });
    }
  });

  it('keeps other answers text: prose streams at once, JSON that is no call streams once its first key is known, and toolChoice none reads nothing', async () => {
    server().reply({ kind: 'sse', frames: textStream(['It is ', 'sunny.']).map((data) => ({ data })) });
    const prose = await drain(model().stream(asked));
    expect(prose.filter((event) => event.type === 'text-delta').map((event) => event.delta)).toEqual(['It is ', 'sunny.']);

    server().reply({ kind: 'sse', frames: textStream(['{"ans', 'wer"', ': 4', '2}']).map((data) => ({ data })) });
    const json = await drain(model().stream(asked));
    expect(json.filter((event) => event.type === 'text-delta').map((event) => event.delta)).toEqual(['{"answer"', ': 4', '2}']);

    server().reply({ kind: 'json', body: completion({ content: bare }) });
    expect(await model().generate({ ...asked, toolChoice: 'none' })).toMatchObject({ text: bare, toolCalls: [] });
    server().reply({ kind: 'sse', frames: textStream([bare]).map((data) => ({ data })) });
    expect(await collectStream(model().stream({ messages: asked.messages }))).toMatchObject({ text: bare, toolCalls: [] });
  });

  it('reads no call from an answer asked for as JSON: it is data, streamed as it comes', async () => {
    const json = { ...asked, responseFormat: { type: 'json' as const } };
    server().reply({ kind: 'json', body: completion({ content: bare }) });
    expect(await model().generate(json)).toMatchObject({ text: bare, toolCalls: [] });
    const half = Math.floor(bare.length / 2);
    server().reply({ kind: 'sse', frames: textStream([bare.slice(0, half), bare.slice(half)]).map((data) => ({ data })) });
    const events = await drain(model().stream(json));
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.delta)).toEqual([bare.slice(0, half), bare.slice(half)]);
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
  });
});

describe('openai.chat stream', () => {
  it('streams text over SSE and asks for usage', async () => {
    server().reply({ kind: 'sse', frames: textStream(['Hel', 'lo']).map((data) => ({ data })) });
    const response = await collectStream(model().stream({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(response.text).toBe('Hello');
    expect(response.usage?.totalTokens).toBe(99);
    expect(server().requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams one call and returns the same response as generate', async () => {
    const chunks = callsStream([{ id: 'call_1', name: 'get_weather', fragments: ['{"ci', 'ty":"Pa', 'ris"}'] }]);
    server().reply({ kind: 'sse', frames: chunks.map((data) => ({ data })) });
    const events = await drain(model().stream({ messages: [{ role: 'user', content: 'Paris?' }], tools: [weatherTool] }));
    expect(events.map((event) => event.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call-delta', 'tool-call-delta', 'tool-call', 'finish']);
    expect(events[4]).toEqual({ type: 'tool-call', toolCall: { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } } });
  });

  it('assembles interleaved parallel deltas sent over the wire', async () => {
    const chunks = [
      roleChunk(),
      callStart(0, 'call_a', 'get_weather'),
      callStart(1, 'call_b', 'get_weather'),
      callArgs(1, '{"city":"Ro'),
      callArgs(0, '{"city":"Pa'),
      callArgs(1, 'me"}'),
      callArgs(0, 'ris"}'),
      finishChunk('tool_calls'),
      usageChunk(),
    ];
    server().reply({ kind: 'sse', frames: chunks.map((data) => ({ data })) });
    const response = await collectStream(model().stream({ messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] }));
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_b', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
  });

  it('gives the same call wherever the SSE bytes are split', async () => {
    const chunks = [roleChunk(), callStart(0, 'call_1', 'get_weather'), callArgs(0, '{"city":"Zürich 😀"}'), finishChunk('tool_calls')];
    const body = Buffer.from(sseBody(chunks.map((data) => ({ data }))));
    const m = model();
    // Every byte offset of the part that carries the arguments, plus a spread over the rest.
    const start = body.indexOf('{\\"city');
    const offsets = new Set<number>();
    for (let at = start; at < start + 40; at++) offsets.add(at);
    for (let at = 1; at < body.length; at += 17) offsets.add(at);
    for (const at of offsets) {
      server().reply({ kind: 'sse', frames: chunks.map((data) => ({ data })), splitAt: [at] });
      const response = await collectStream(m.stream({ messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] }));
      expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Zürich 😀' } }]);
    }
  });

  it('reports length when the output limit cuts a call', async () => {
    server().reply({ kind: 'sse', frames: callsStream([{ id: 'call_1', name: 'get_weather', fragments: ['{"city":"Pa'] }], 'length').map((data) => ({ data })) });
    const response = await collectStream(model().stream({ messages: [{ role: 'user', content: 'x' }], tools: [weatherTool], maxOutputTokens: 5 }));
    expect(response.finishReason).toBe('length');
    expect(response.toolCalls[0]?.invalid).toBeDefined();
  });

  it('says what a 200 answer to a stream that is no event stream is: the error in its JSON, or the JSON it is', async () => {
    server().reply({ kind: 'json', body: { error: { message: 'Rate limit exceeded: free-models-per-day', code: 429 } } });
    const limited = await collectStream(model().stream({ messages: [{ role: 'user', content: 'Hi' }] })).catch((e: unknown) => e);
    expect(limited).toMatchObject({ name: 'RateLimitError' });
    expect((limited as Error).message).toContain('Rate limit exceeded: free-models-per-day');

    server().reply({ kind: 'json', body: completion({ content: 'Hello there.' }) });
    const whole = await collectStream(model().stream({ messages: [{ role: 'user', content: 'Hi' }] })).catch((e: unknown) => e);
    expect(whole).toMatchObject({ name: 'ProviderError', code: 'not_event_stream' });
    expect((whole as Error).message).toContain('ignores `stream: true`');
  });

  it('ends with an error event when the stream ends without a finish', async () => {
    server().reply({ kind: 'sse', frames: [roleChunk(), callStart(0, 'call_1', 'f'), callArgs(0, '{}')].map((data) => ({ data })) });
    const events = await drain(model().stream({ messages: [{ role: 'user', content: 'x' }], tools: [weatherTool] }));
    const last = events.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && StreamError.isInstance(last.error)).toBe(true);
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
  });

  it('cancels the HTTP request when aborted mid-stream', async () => {
    server().reply({ kind: 'sse', frames: [{ data: roleChunk() }, { data: textStream(['Once upon'])[1] }], hang: true });
    const controller = new AbortController();
    const closed = server().closedByClient();
    const events: ChatStreamEvent[] = [];
    for await (const event of model().stream({ messages: [{ role: 'user', content: 'Tell a story' }], signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    await closed;
    expect(events[0]).toEqual({ type: 'text-delta', delta: 'Once upon' });
    const last = events.at(-1);
    expect(last?.type === 'error' && last.error.name).toBe('AbortError');
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(model().generate({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(server().requests).toHaveLength(0);
  });
});
