import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { collectStream } from '../collect-stream.ts';
import type { ChatRequest } from '../types/chat-request.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import { createScriptedModel } from './scripted-model.ts';
import { toChatResponse, toStreamEvents } from './scripted-response.ts';
import { ScriptExhaustedError } from './testing-errors.ts';

const ask = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }] });

async function drain(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const all: ChatStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('createScriptedModel', () => {
  it('answers calls with the steps in order and records the requests', async () => {
    const model = createScriptedModel([{ text: 'one' }, { text: 'two' }]);
    expect(model).toMatchObject({ provider: 'scripted', modelId: 'scripted-model', remaining: 2 });
    expect((await model.generate(ask('a'))).text).toBe('one');
    expect((await model.generate(ask('b'))).text).toBe('two');
    expect(model.requests.map((r) => r.messages[0]?.content)).toEqual(['a', 'b']);
    expect(model.calls.map((c) => c.method)).toEqual(['generate', 'generate']);
    expect(model.remaining).toBe(0);
  });

  it('expands a short response into a full ChatResponse with default ids and finish reasons', async () => {
    const model = createScriptedModel([{ text: 'Checking', toolCalls: [{ name: 'search', arguments: { q: 'x' } }, { name: 'noop' }] }]);
    const response = await model.generate(ask('a'));
    expect(response).toEqual({
      text: 'Checking',
      toolCalls: [
        { id: 'call_0_0', name: 'search', arguments: { q: 'x' } },
        { id: 'call_0_1', name: 'noop', arguments: {} },
      ],
      toolResults: [],
      finishReason: 'tool-calls',
      warnings: [],
      message: {
        role: 'assistant',
        content: 'Checking',
        toolCalls: [
          { id: 'call_0_0', name: 'search', arguments: { q: 'x' } },
          { id: 'call_0_1', name: 'noop', arguments: {} },
        ],
      },
    });
  });

  it('streams a short response as chunked deltas that collect back to the same response', async () => {
    const model = createScriptedModel([{ text: 'Hello world', toolCalls: [{ id: 'c1', name: 'f', arguments: { a: 1 } }] }], { chunkSize: 4 });
    const events = await drain(model.stream(ask('a')));
    expect(events.filter((e) => e.type === 'text-delta').map((e) => (e.type === 'text-delta' ? e.delta : ''))).toEqual(['Hell', 'o wo', 'rld']);
    expect(events.filter((e) => e.type === 'tool-call-delta')).toEqual([
      { type: 'tool-call-delta', id: 'c1', argumentsDelta: '{"a"' },
      { type: 'tool-call-delta', id: 'c1', argumentsDelta: ':1}' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    const again = createScriptedModel([{ text: 'Hello world', toolCalls: [{ id: 'c1', name: 'f', arguments: { a: 1 } }] }]);
    expect(await collectStream(events.values() as unknown as AsyncIterable<ChatStreamEvent>)).toEqual(await again.generate(ask('a')));
  });

  it('replays stream-event steps as given, and collects them for generate', async () => {
    const events: ChatStreamEvent[] = [
      { type: 'text-delta', delta: 'Hi' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
    ];
    const model = createScriptedModel([{ events }, { events }]);
    expect(await drain(model.stream(ask('a')))).toEqual(events);
    expect(await model.generate(ask('b'))).toMatchObject({ text: 'Hi', usage: { totalTokens: 2 } });
  });

  it('throws a scripted error from generate, and from the first next() of stream', async () => {
    const model = createScriptedModel([{ error: new Error('401 bad key') }, { error: new Error('503') }]);
    await expect(model.generate(ask('a'))).rejects.toThrow('401 bad key');
    const iterator = model.stream(ask('b'))[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow('503');
  });

  it('lets a step be a function of the request', async () => {
    const model = createScriptedModel([(request, index) => ({ text: `echo ${JSON.stringify(request.messages[0]?.content)} #${index}` })]);
    expect((await model.generate(ask('ping'))).text).toBe('echo "ping" #0');
  });

  it('throws ScriptExhaustedError past the last step, with the call number', async () => {
    const model = createScriptedModel([{ text: 'only' }]);
    await model.generate(ask('a'));
    const error: unknown = await model.generate(ask('b')).catch((caught: unknown) => caught);
    expect(ScriptExhaustedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^The scripted model got call #2 but has only 1 step\(s\)\./);
  });

  it('rejects with the reason of an aborted request signal, also mid-stream', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([{ text: 'abcdefgh' }, { text: 'x' }], { chunkSize: 1 });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of model.stream({ ...ask('a'), signal: controller.signal })) {
          if (event.type === 'text-delta') seen.push(event.delta);
          if (seen.length === 2) controller.abort(new Error('enough'));
        }
      })(),
    ).rejects.toThrow('enough');
    expect(seen).toEqual(['a', 'b']);
    await expect(model.generate({ ...ask('b'), signal: controller.signal })).rejects.toThrow('enough');
  });

  it('uses the provider and model id given', () => {
    expect(createScriptedModel([], { provider: 'openai', modelId: 'gpt-test' })).toMatchObject({ provider: 'openai', modelId: 'gpt-test' });
  });
});

describe('toStreamEvents', () => {
  it('emits warnings, reasoning, text, tool calls, provider results and finish in that order', () => {
    const response = toChatResponse(
      {
        text: 'T',
        reasoning: 'R',
        warnings: [{ type: 'other', message: 'w' }],
        toolCalls: [{ id: 'p1', name: 'code_interpreter', arguments: {}, providerExecuted: true }],
        toolResults: [{ toolCallId: 'p1', name: 'code_interpreter', success: true, message: 'ok', providerExecuted: true }],
        responseId: 'resp_1',
      },
      0,
    );
    expect(toStreamEvents(response).map((e) => e.type)).toEqual([
      'warning',
      'reasoning-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call',
      'tool-result',
      'finish',
    ]);
    expect(toStreamEvents(response)[3]).toEqual({ type: 'tool-call-start', id: 'p1', name: 'code_interpreter', providerExecuted: true });
  });

  it('streams the raw text of an invalid call as its argument deltas', () => {
    const response = toChatResponse({ toolCalls: [{ id: 'c', name: 'f', invalid: { rawArguments: '{"a":', message: 'cut off' } }] }, 0);
    expect(toStreamEvents(response).filter((e) => e.type === 'tool-call-delta')).toEqual([{ type: 'tool-call-delta', id: 'c', argumentsDelta: '{"a":' }]);
  });

  it('never splits a surrogate pair across deltas', () => {
    const response = toChatResponse({ text: 'a😀b' }, 0);
    const deltas = toStreamEvents(response, 2).flatMap((e) => (e.type === 'text-delta' ? [e.delta] : []));
    expect(deltas).toEqual(['a😀', 'b']);
  });
});

describe('toStreamEvents and collectStream', () => {
  it('round-trip any scripted response, whatever the chunk size', async () => {
    const call = fc.record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      name: fc.string({ minLength: 1, maxLength: 8 }),
      arguments: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.record({ text: fc.string(), reasoning: fc.option(fc.string({ minLength: 1 }), { nil: undefined }), toolCalls: fc.array(call, { maxLength: 3 }) }),
        fc.integer({ min: 1, max: 20 }),
        async (scripted, chunkSize) => {
          const response = toChatResponse(scripted, 0);
          async function* events(): AsyncGenerator<ChatStreamEvent> {
            yield* toStreamEvents(response, chunkSize);
          }
          expect(await collectStream(events())).toEqual(response);
        },
      ),
      { numRuns: 200 },
    );
  });
});
