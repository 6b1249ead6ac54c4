import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { collectStream } from './collect-stream.ts';
import { defineTool } from './define-tool.ts';
import { nextThen } from './provider/next-then.ts';
import { runToolsStream } from './run-tools-stream.ts';
import { createScriptedModel } from './testing/scripted-model.ts';
import type { ChatModel } from './types/chat-model.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';
import type { Message } from './types/message.ts';
import type { FunctionToolSpec } from './types/tool.ts';

const question: Message[] = [{ role: 'user', content: 'Weather in Paris?' }];
const weather = defineTool({
  name: 'get_weather',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `${city}: 21°`,
});

async function drain(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const all: ChatStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('runToolsStream', () => {
  it('streams the model events of every step with a tool-result between them', async () => {
    const model = createScriptedModel([
      { text: 'Checking.', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'It is 21° in Paris.' },
    ]);
    const run = runToolsStream({ model, messages: question, tools: [weather] });
    const events = await drain(run);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'finish')).toHaveLength(2);
    const resultIndex = types.indexOf('tool-result');
    expect(types.indexOf('tool-call')).toBeLessThan(resultIndex);
    expect(resultIndex).toBeLessThan(types.lastIndexOf('text-delta'));
    expect(events[resultIndex]).toEqual({
      type: 'tool-result',
      result: { toolCallId: 'c1', name: 'get_weather', success: true, message: 'Paris: 21°', value: 'Paris: 21°' },
    });
    const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Checking.It is 21° in Paris.');
    const result = await run.result;
    expect(result).toMatchObject({ stoppedBy: 'answer', text: 'It is 21° in Paris.' });
    expect(model.calls.map((c) => c.method)).toEqual(['stream', 'stream']);
  });

  it('runs without iteration when only the result is awaited', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Cold.' }]);
    const result = await runToolsStream({ model, messages: question, tools: [weather] }).result;
    expect(result.text).toBe('Cold.');
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('yields a last step that collectStream reads as the final answer', async () => {
    const model = createScriptedModel([{ text: 'Hi there' }]);
    const response = await collectStream(runToolsStream({ model, messages: question, tools: [weather] }));
    expect(response).toMatchObject({ text: 'Hi there', finishReason: 'stop' });
  });

  it('stops for client tools and exposes the pending calls on result', async () => {
    const ask: FunctionToolSpec = { type: 'function', name: 'ask_user', inputSchema: { type: 'object' } };
    const model = createScriptedModel([{ toolCalls: [{ id: 'a1', name: 'ask_user', arguments: { q: 'Which city?' } }] }]);
    const run = runToolsStream({ model, messages: question, tools: [weather, ask] });
    const events = await drain(run);
    expect(events.filter((e) => e.type === 'tool-call')).toHaveLength(1);
    expect(events.some((e) => e.type === 'tool-result')).toBe(false);
    const result = await run.result;
    expect(result.stoppedBy).toBe('client-tool-calls');
    expect(result.pendingToolCalls.map((c) => c.id)).toEqual(['a1']);
  });

  it('ends with the error event when the model fails mid-stream, and rejects result', async () => {
    const failure = new Error('connection reset');
    const model = createScriptedModel([{ events: [{ type: 'text-delta', delta: 'Hel' }, { type: 'error', error: failure }] }]);
    const run = runToolsStream({ model, messages: question, tools: [weather] });
    const events = await drain(run);
    expect(events).toEqual([
      { type: 'text-delta', delta: 'Hel' },
      { type: 'error', error: failure },
    ]);
    await expect(run.result).rejects.toBe(failure);
  });

  it('turns a failure of a later step into a final error event', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { error: new Error('rate limited upstream') },
    ]);
    const run = runToolsStream({ model, messages: question, tools: [weather] });
    const events = await drain(run);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { message: 'rate limited upstream' } });
    await expect(run.result).rejects.toThrow('rate limited upstream');
  });

  it('rejects the first next() when the model fails before any event', async () => {
    const model = createScriptedModel([{ error: new Error('bad key') }]);
    const run = runToolsStream({ model, messages: question, tools: [weather] });
    await expect(drain(run)).rejects.toThrow('bad key');
    await expect(run.result).rejects.toThrow('bad key');
  });

  it('rejects iteration and result with the abort reason when the signal aborts mid-stream', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([
      {
        events: [
          { type: 'text-delta', delta: 'a' },
          { type: 'text-delta', delta: 'b' },
          { type: 'finish', finishReason: 'stop' },
        ],
      },
    ]);
    const run = runToolsStream({ model, messages: question, tools: [weather], signal: controller.signal });
    const seen: ChatStreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of run) {
          seen.push(event);
          controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen[0]).toEqual({ type: 'text-delta', delta: 'a' });
    await expect(run.result).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('aborts the run when the consumer stops reading early', async () => {
    let toolRan = false;
    const track = defineTool({
      name: 'track',
      parameters: { type: 'object' },
      execute: () => {
        toolRan = true;
        return 'ok';
      },
    });
    const model = createScriptedModel([{ text: 'long text before the call', toolCalls: [{ name: 'track' }] }, { text: 'end' }], { chunkSize: 1 });
    const run = runToolsStream({ model, messages: question, tools: [track] });
    for await (const event of run) {
      if (event.type === 'text-delta') break;
    }
    await expect(run.result).rejects.toMatchObject({ name: 'AbortError' });
    expect(toolRan).toBe(false);
  });

  it('reads the model no further than a bounded backlog ahead of a slow consumer, and loses nothing', async () => {
    const scripted = createScriptedModel([{ text: 'x'.repeat(3000) }], { chunkSize: 1 });
    let pulled = 0;
    const model: ChatModel = {
      ...scripted,
      stream: async function* (request) {
        for await (const event of scripted.stream(request)) {
          pulled++;
          yield event;
        }
      },
    };
    const run = runToolsStream({ model, messages: question });
    const iterator = run[Symbol.asyncIterator]();
    const first = await iterator.next();
    // A consumer that stops for a while: the run does not read the whole answer meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulled).toBeLessThan(600);
    let text = first.done === true || first.value.type !== 'text-delta' ? '' : first.value.delta;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) if (next.value.type === 'text-delta') text += next.value.delta;
    expect(text).toBe('x'.repeat(3000));
    expect(pulled).toBeGreaterThan(3000);
    expect((await run.result).text).toBe('x'.repeat(3000));
  });

  it('runs a long answer to its end when only the result is read (nobody to wait for)', async () => {
    const model = createScriptedModel([{ text: 'y'.repeat(3000) }], { chunkSize: 1 });
    const run = runToolsStream({ model, messages: question });
    expect((await run.result).text).toBe('y'.repeat(3000));
  });

  it('stops a run held back by its backlog when the consumer leaves, and lets the model stream go', async () => {
    const scripted = createScriptedModel([{ text: 'x'.repeat(3000) }], { chunkSize: 1 });
    let released = false;
    const model: ChatModel = {
      ...scripted,
      stream: async function* (request) {
        try {
          yield* scripted.stream(request);
        } finally {
          released = true;
        }
      },
    };
    const run = runToolsStream({ model, messages: question });
    const iterator = run[Symbol.asyncIterator]();
    await iterator.next();
    // The backlog fills and the run waits for the consumer, which leaves instead.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await iterator.return?.();
    await expect(run.result).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(released).toBe(true);
  });

  describe('through NEXT_THEN (how the gateway reads it)', () => {
    const rethrow = (error: unknown): never => {
      throw error;
    };

    /** Reads to the end through `nextThen`, the way the gateway's loop does. */
    async function drainChained(events: AsyncIterable<ChatStreamEvent>): Promise<{ events: ChatStreamEvent[]; failure?: unknown }> {
      const iterator = events[Symbol.asyncIterator]();
      const seen: ChatStreamEvent[] = [];
      for (;;) {
        const step = await nextThen<ChatStreamEvent, boolean | { error: unknown }>(
          iterator,
          (next) => {
            if (next.done === true) return false;
            seen.push(next.value);
            return true;
          },
          (error: unknown) => ({ error }),
        );
        if (step === false) return { events: seen };
        if (step !== true) return { events: seen, failure: step.error };
      }
    }

    it('gives what next() gives: tool rounds, client calls, a failure mid-stream, a failure before any event, a later step failing', async () => {
      const ask: FunctionToolSpec = { type: 'function', name: 'ask_user', inputSchema: { type: 'object' } };
      const scripts: Parameters<typeof createScriptedModel>[0][] = [
        [{ text: 'Checking.', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is 21° in Paris.' }],
        [{ toolCalls: [{ id: 'a1', name: 'ask_user', arguments: { q: 'Which city?' } }] }],
        [{ events: [{ type: 'text-delta', delta: 'Hel' }, { type: 'error', error: new Error('connection reset') }] }],
        [{ error: new Error('bad key') }],
        [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { error: new Error('rate limited upstream') }],
      ];
      for (const script of scripts) {
        const plain = runToolsStream({ model: createScriptedModel(script, { chunkSize: 3 }), messages: question, tools: [weather, ask] });
        const expected: { events: ChatStreamEvent[]; failure?: unknown } = { events: [] };
        try {
          for await (const event of plain) expected.events.push(event);
        } catch (error) {
          expected.failure = error;
        }
        const chained = runToolsStream({ model: createScriptedModel(script, { chunkSize: 3 }), messages: question, tools: [weather, ask] });
        const got = await drainChained(chained);
        expect(got).toEqual(expected);
        const [plainResult, chainedResult] = await Promise.allSettled([plain.result, chained.result]);
        expect(chainedResult).toEqual(plainResult);
      }
    });

    it('settles its promise with what the callback returns, or rejects it with what the callback throws', async () => {
      const run = runToolsStream({ model: createScriptedModel([{ events: [{ type: 'text-delta', delta: 'a' }, { type: 'finish', finishReason: 'stop' }] }]), messages: question });
      const iterator = run[Symbol.asyncIterator]();
      await expect(nextThen(iterator, (next) => (next.done === true ? 'end' : next.value.type), () => 'failed')).resolves.toBe('text-delta');
      const thrown = new Error('consumer failed');
      await expect(
        nextThen(
          iterator,
          () => {
            throw thrown;
          },
          () => 'failed',
        ),
      ).rejects.toBe(thrown);
      expect((await run.result).text).toBe('a');
    });

    it('fails the run, and lets the model go, when a model without guardStream yields something that is not an event', async () => {
      let returned = 0;
      let step = 0;
      const model: ChatModel = {
        ...createScriptedModel([{ text: 'unused' }]),
        stream: () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => Promise.resolve(step++ === 0 ? { done: false, value: undefined as unknown as ChatStreamEvent } : { done: true, value: undefined }),
            return: () => {
              returned++;
              return Promise.resolve({ done: true, value: undefined });
            },
          }),
        }),
      };
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const run = runToolsStream({ model, messages: question });
        await expect(drainChained(run)).resolves.toMatchObject({ events: [], failure: expect.any(TypeError) });
        await expect(run.result).rejects.toBeInstanceOf(TypeError);
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(returned).toBe(1);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });

    it('hands the event to a next() called while a NEXT_THEN read waits, and leaves that read pending (two reads at once), as a second next() does', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const scripted = createScriptedModel([{ events: [{ type: 'text-delta', delta: 'a' }, { type: 'finish', finishReason: 'stop' }] }]);
      const model: ChatModel = {
        ...scripted,
        stream: async function* (request) {
          await gate;
          yield* scripted.stream(request);
        },
      };
      const run = runToolsStream({ model, messages: question });
      const iterator = run[Symbol.asyncIterator]();
      let called = false;
      let settled = false;
      void nextThen(
        iterator,
        () => (called = true),
        () => (called = true),
      ).then(() => (settled = true));
      const second = iterator.next();
      release();
      await expect(second).resolves.toEqual({ value: { type: 'text-delta', delta: 'a' }, done: false });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(called).toBe(false);
      expect(settled).toBe(false);
      await iterator.return?.();
    });

    it('stops the run when the consumer leaves inside its callback, and reads the model no further', async () => {
      const scripted = createScriptedModel([{ text: 'x'.repeat(50), toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'end' }], { chunkSize: 1 });
      let pulled = 0;
      let released = false;
      const model: ChatModel = {
        ...scripted,
        stream: async function* (request) {
          try {
            for await (const event of scripted.stream(request)) {
              pulled++;
              yield event;
            }
          } finally {
            released = true;
          }
        },
      };
      const run = runToolsStream({ model, messages: question, tools: [weather] });
      const iterator = run[Symbol.asyncIterator]();
      const leave = (next: IteratorResult<ChatStreamEvent>): IteratorResult<ChatStreamEvent> => {
        void iterator.return?.();
        return next;
      };
      const first = await nextThen(iterator, leave, rethrow);
      expect(first).toEqual({ value: { type: 'text-delta', delta: 'x' }, done: false });
      await expect(run.result).rejects.toMatchObject({ name: 'AbortError' });
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(pulled).toBe(1);
      expect(released).toBe(true);
      expect(scripted.calls).toHaveLength(1);
    });

    it("rejects result with the model's error when the consumer leaves inside the callback of the error event", async () => {
      const failure = new Error('connection reset');
      const run = runToolsStream({ model: createScriptedModel([{ events: [{ type: 'text-delta', delta: 'Hel' }, { type: 'error', error: failure }] }]), messages: question });
      const iterator = run[Symbol.asyncIterator]();
      const leaveAtError = (next: IteratorResult<ChatStreamEvent>): IteratorResult<ChatStreamEvent> => {
        if (next.done !== true && next.value.type === 'error') void iterator.return?.();
        return next;
      };
      const read = (): Promise<IteratorResult<ChatStreamEvent>> => nextThen(iterator, leaveAtError, rethrow);
      expect(await read()).toMatchObject({ value: { type: 'text-delta' } });
      expect(await read()).toEqual({ value: { type: 'error', error: failure }, done: false });
      await expect(run.result).rejects.toBe(failure);
    });
  });
});
