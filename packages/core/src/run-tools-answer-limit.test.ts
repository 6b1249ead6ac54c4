// A model that never stops, in the tool loop: text without end, calls without end, and a
// whole answer past the bound from `generate`. The run fails with an `AnswerTooLargeError`
// naming runTools' option, the model's stream is closed (its `finally` runs), and an answer
// under the bound still goes through.
import { describe, expect, it } from 'vitest';
import { AnswerTooLargeError } from './errors.ts';
import { runTools } from './run-tools.ts';
import { runToolsStream } from './run-tools-stream.ts';
import type { ChatModel } from './types/chat-model.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';

const KIB = 1024;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Endless {
  model: ChatModel;
  /** Characters streamed so far. */
  chars: () => number;
  /** Whether the stream was closed (its generator's `finally` ran). */
  closed: () => boolean;
}

/** A model whose stream writes `event(i)` one per turn of the event loop, without end (or `total` characters, then a finish). */
function endless(event: (i: number) => ChatStreamEvent[], options: { total?: number; piece?: number } = {}): Endless {
  let chars = 0;
  let closed = false;
  const model: ChatModel = {
    provider: 'test',
    modelId: 'endless',
    generate: () => Promise.reject(new Error('stream only')),
    async *stream() {
      try {
        for (let i = 0; options.total === undefined || chars < options.total; i++) {
          for (const e of event(i)) {
            if (e.type === 'text-delta') chars += e.delta.length;
            yield e;
          }
          await nextTurn();
        }
        yield { type: 'finish', finishReason: 'stop' };
      } finally {
        closed = true;
      }
    },
  };
  return { model, chars: () => chars, closed: () => closed };
}

const words = (i: number): string => 'lorem ipsum dolor sit amet '.slice(0, 5 + (i % 23));
const text = (i: number): ChatStreamEvent[] => [{ type: 'text-delta', delta: words(i) }];
const call = (i: number): ChatStreamEvent[] => [
  { type: 'tool-call-start', id: `c${i}`, name: 'client_tool' },
  { type: 'tool-call-delta', id: `c${i}`, argumentsDelta: '{}' },
  { type: 'tool-call', toolCall: { id: `c${i}`, name: 'client_tool', arguments: {} } },
];
const messages = [{ role: 'user' as const, content: 'go' }];
const clientTool = { type: 'function' as const, name: 'client_tool', description: 'The client runs it.', inputSchema: { type: 'object' as const } };

async function drain(stream: AsyncIterable<ChatStreamEvent>): Promise<unknown> {
  try {
    for await (const event of stream) if (event.type === 'error') return event.error;
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('runToolsStream with a model that never stops', () => {
  it('fails the run past maxAnswerChars and closes the model stream', async () => {
    const model = endless(text);
    const run = runToolsStream({ model: model.model, messages, maxAnswerChars: 64 * KIB });
    const error = await drain(run);
    expect(AnswerTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ limit: 'chars', max: 64 * KIB, setting: 'the maxAnswerChars option of runTools' });
    await expect(run.result).rejects.toBe(error);
    expect(model.closed()).toBe(true);
    expect(model.chars()).toBeLessThan(64 * KIB + 64);
  });

  it('fails the run past maxToolCallsPerAnswer and closes the model stream', async () => {
    const model = endless(call);
    const run = runToolsStream({ model: model.model, messages, tools: [clientTool], maxToolCallsPerAnswer: 32 });
    const error = await drain(run);
    expect(error).toMatchObject({ limit: 'tool-calls', max: 32, setting: 'the maxToolCallsPerAnswer option of runTools' });
    expect(model.closed()).toBe(true);
  });

  it('bounds each answer by default (4 Mi characters)', async () => {
    const model = endless(() => [{ type: 'text-delta', delta: 'y'.repeat(4 * KIB) }]);
    const error = await drain(runToolsStream({ model: model.model, messages }));
    expect(error).toMatchObject({ limit: 'chars', max: 4 * 1024 * KIB });
    expect(model.closed()).toBe(true);
  });

  it('passes a long answer under the bound, and lets 0 turn the bound off', async () => {
    const under = endless(text, { total: 60 * KIB });
    const result = await runToolsStream({ model: under.model, messages, maxAnswerChars: 64 * KIB }).result;
    expect(result.text.length).toBe(under.chars());
    const off = endless(text, { total: 128 * KIB });
    expect((await runToolsStream({ model: off.model, messages, maxAnswerChars: 0 }).result).text.length).toBe(off.chars());
  });

  it('refuses a bound that is not a whole number before any model call', async () => {
    const model = endless(text);
    await expect(runToolsStream({ model: model.model, messages, maxAnswerChars: -5 }).result).rejects.toThrow(/the maxAnswerChars option of runTools must be a whole number/u);
    await expect(runTools({ model: model.model, messages, maxToolCallsPerAnswer: 0.5 })).rejects.toThrow(/the maxToolCallsPerAnswer option of runTools must be a whole number/u);
    expect(model.chars()).toBe(0);
  });
});

describe('runTools with an answer past the bound', () => {
  const answering = (response: Partial<ChatResponse>): ChatModel => ({
    provider: 'test',
    modelId: 'whole',
    generate: () =>
      Promise.resolve({ text: '', toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: '' }, ...response }),
    stream: () => {
      throw new Error('generate only');
    },
  });

  it('fails with an AnswerTooLargeError naming its option', async () => {
    const error = await runTools({ model: answering({ text: 'x'.repeat(100) }), messages, maxAnswerChars: 99 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ limit: 'chars', setting: 'the maxAnswerChars option of runTools' });
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `c${i}`, name: 'client_tool', arguments: {} }));
    const tooMany = await runTools({ model: answering({ toolCalls: calls }), messages, tools: [clientTool], maxToolCallsPerAnswer: 4 }).catch((e: unknown) => e);
    expect(tooMany).toMatchObject({ limit: 'tool-calls', max: 4 });
  });

  it('passes an answer at the bound', async () => {
    const result = await runTools({ model: answering({ text: 'x'.repeat(99) }), messages, maxAnswerChars: 99 });
    expect(result.text.length).toBe(99);
  });
});
