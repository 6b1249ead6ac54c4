import { InvalidRequestError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, Message } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { ContainerExpiredError } from '../errors.ts';
import type { CodeInterpreterEvent } from '../events.ts';
import { withContainerRecovery, withoutCodeInterpreterCalls } from './container-recovery.ts';
import { openAICodeInterpreter } from './openai-code-interpreter.ts';

const STALE = 'cntr_68cdc387531c81938b4bee78c36acb820dbd09bdba403548';
const expired = () => new InvalidRequestError({ provider: 'openai', status: 400, message: `Expected container_id: ${STALE}` });

const history: Message[] = [
  { role: 'user', content: 'plot y=x^2' },
  {
    role: 'assistant',
    content: 'Here is the chart.',
    toolCalls: [
      { id: 'ci_1', name: 'code_interpreter', arguments: { code: 'plot()', containerId: STALE }, providerExecuted: true },
      { id: 'call_2', name: 'lookup', arguments: {} },
    ],
    toolResults: [{ toolCallId: 'ci_1', name: 'code_interpreter', success: true, message: '', providerExecuted: true }],
  },
  { role: 'tool', toolCallId: 'call_2', content: 'ok' },
  { role: 'user', content: 'now x^3' },
];

const answer: ChatResponse = {
  text: 'done',
  toolCalls: [],
  toolResults: [],
  finishReason: 'stop',
  warnings: [],
  message: { role: 'assistant', content: 'done' },
};

/** A model that fails with `failures` errors first, then answers; records every request. */
function fakeModel(failures: Error[]): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    provider: 'openai',
    modelId: 'gpt-5',
    requests,
    async generate(request) {
      requests.push(request);
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return answer;
    },
    async *stream(request): AsyncGenerator<ChatStreamEvent> {
      requests.push(request);
      const failure = failures.shift();
      if (failure !== undefined) {
        yield { type: 'error', error: failure };
        return;
      }
      yield { type: 'text-delta', delta: 'done' };
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
}

describe('withoutCodeInterpreterCalls', () => {
  it('drops provider-executed code interpreter calls and results but keeps text and other calls', () => {
    const cleaned = withoutCodeInterpreterCalls(history);
    expect(cleaned[1]).toEqual({
      role: 'assistant',
      content: 'Here is the chart.',
      toolCalls: [{ id: 'call_2', name: 'lookup', arguments: {} }],
    });
    expect(cleaned[0]).toBe(history[0]);
    expect(history[1]).toHaveProperty('toolResults');
  });
});

describe('withContainerRecovery', () => {
  it('retries once without the stale calls when an auto container expired', async () => {
    const events: CodeInterpreterEvent[] = [];
    const model = fakeModel([expired()]);
    const wrapped = withContainerRecovery(model, { onEvent: (e) => events.push(e) });
    const tools = [openAICodeInterpreter({ container: { memoryLimit: '4g' } })];
    expect(await wrapped.generate({ messages: history, tools })).toBe(answer);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.messages).toBe(history);
    expect(model.requests[1]!.messages[1]).not.toHaveProperty('toolResults');
    expect(model.requests[1]!.tools).toBe(tools);
    expect(events).toEqual([
      { type: 'container-expired', containerId: STALE },
      { type: 'container-recreated', previousContainerId: STALE, containerId: undefined, memoryLimit: '4g' },
    ]);
  });

  it('throws ContainerExpiredError for a named container instead of replacing it', async () => {
    const model = fakeModel([expired()]);
    const wrapped = withContainerRecovery(model);
    const error = await wrapped.generate({ messages: history, tools: [openAICodeInterpreter({ container: STALE })] }).catch((e: unknown) => e);
    expect(ContainerExpiredError.isInstance(error)).toBe(true);
    expect(model.requests).toHaveLength(1);
  });

  it('throws ContainerExpiredError when recreation is not allowed', async () => {
    const model = fakeModel([expired()]);
    const error = await withContainerRecovery(model, { recreate: false })
      .generate({ messages: history, tools: [openAICodeInterpreter()] })
      .catch((e: unknown) => e);
    expect(ContainerExpiredError.isInstance(error)).toBe(true);
    expect(model.requests).toHaveLength(1);
  });

  it('retries only once', async () => {
    const model = fakeModel([expired(), expired()]);
    const error = await withContainerRecovery(model).generate({ messages: history, tools: [openAICodeInterpreter()] }).catch((e: unknown) => e);
    expect(ContainerExpiredError.isInstance(error)).toBe(true);
    expect(model.requests).toHaveLength(2);
  });

  it('passes other errors through untouched', async () => {
    const other = new InvalidRequestError({ provider: 'openai', status: 400, message: 'bad tool_choice' });
    const model = fakeModel([other]);
    await expect(withContainerRecovery(model).generate({ messages: history, tools: [openAICodeInterpreter()] })).rejects.toBe(other);
  });

  it('recovers a stream whose first event is the expiry', async () => {
    const model = fakeModel([expired()]);
    const events: ChatStreamEvent[] = [];
    for await (const event of withContainerRecovery(model).stream({ messages: history, tools: [openAICodeInterpreter()] })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['text-delta', 'finish']);
    expect(model.requests).toHaveLength(2);
  });

  it('throws ContainerExpiredError from a stream that cannot recover before any output', async () => {
    const model = fakeModel([expired()]);
    const stream = withContainerRecovery(model).stream({ messages: history, tools: [openAICodeInterpreter({ container: STALE })] });
    await expect(
      (async () => {
        for await (const _ of stream) {
          // drain
        }
      })(),
    ).rejects.toSatisfy((e) => ContainerExpiredError.isInstance(e));
  });

  it('keeps the wrapped model identity', () => {
    const wrapped = withContainerRecovery(fakeModel([]));
    expect([wrapped.provider, wrapped.modelId]).toEqual(['openai', 'gpt-5']);
  });
});
