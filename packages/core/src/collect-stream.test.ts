import { describe, expect, it } from 'vitest';
import { collectStream, createResponseCollector } from './collect-stream.ts';
import { StreamError } from './errors.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';

async function* from(events: ChatStreamEvent[]): AsyncGenerator<ChatStreamEvent> {
  for (const event of events) yield await Promise.resolve(event);
}

describe('collectStream', () => {
  it('joins text and reasoning deltas and keeps finish data', async () => {
    const response = await collectStream(
      from([
        { type: 'reasoning-delta', delta: 'think ' },
        { type: 'reasoning-delta', delta: 'hard' },
        { type: 'text-delta', delta: 'Hel' },
        { type: 'text-delta', delta: 'lo' },
        { type: 'warning', warning: { type: 'other', message: 'seed ignored' } },
        {
          type: 'finish',
          finishReason: 'stop',
          usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
          responseId: 'r1',
          modelId: 'm1',
          providerMetadata: { openai: { id: 'x' } },
        },
      ]),
    );
    expect(response).toEqual({
      text: 'Hello',
      reasoning: 'think hard',
      toolCalls: [],
      toolResults: [],
      finishReason: 'stop',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      warnings: [{ type: 'other', message: 'seed ignored' }],
      responseId: 'r1',
      modelId: 'm1',
      providerMetadata: { openai: { id: 'x' } },
      message: { role: 'assistant', content: 'Hello', reasoning: 'think hard', providerMetadata: { openai: { id: 'x' } } },
    });
  });

  it('keeps every delta of a long stream in order, across the batches it joins them in', async () => {
    const deltas = Array.from({ length: 1000 }, (_, i) => `t${i} `);
    const events: ChatStreamEvent[] = [...deltas.map((delta): ChatStreamEvent => ({ type: 'text-delta', delta })), { type: 'finish', finishReason: 'stop' }];
    const response = await collectStream(from(events));
    expect(response.text).toBe(deltas.join(''));
    expect(response.message.content).toBe(deltas.join(''));
  });

  it('takes complete tool calls from tool-call events, not from the deltas', async () => {
    const call = { id: 'c1', name: 'search', arguments: { q: 'x' } };
    const result = { toolCallId: 'p1', name: 'code_interpreter', success: true, message: 'ok', providerExecuted: true };
    const response = await collectStream(
      from([
        { type: 'tool-call-start', id: 'c1', name: 'search' },
        { type: 'tool-call-delta', id: 'c1', argumentsDelta: '{"q":' },
        { type: 'tool-call-delta', id: 'c1', argumentsDelta: '"x"}' },
        { type: 'tool-call', toolCall: call },
        { type: 'tool-result', result },
        { type: 'finish', finishReason: 'tool-calls' },
      ]),
    );
    expect(response.toolCalls).toEqual([call]);
    expect(response.toolResults).toEqual([result]);
    expect(response.message).toEqual({ role: 'assistant', content: '', toolCalls: [call], toolResults: [result] });
    expect(response).not.toHaveProperty('usage');
  });

  it("throws the stream's error event", async () => {
    const error = new Error('socket closed');
    await expect(collectStream(from([{ type: 'text-delta', delta: 'a' }, { type: 'error', error }]))).rejects.toBe(error);
  });

  it('throws a StreamError when the stream ends without finish', async () => {
    const attempt = collectStream(from([{ type: 'text-delta', delta: 'a' }]));
    await expect(attempt).rejects.toThrow(StreamError);
    await expect(collectStream(from([]))).rejects.toThrow('The stream ended without a finish event.');
  });
});

describe('createResponseCollector', () => {
  it('leaves a response already returned as it was when events are added after it', () => {
    const collector = createResponseCollector();
    collector.add({ type: 'text-delta', delta: 'a' });
    collector.add({ type: 'finish', finishReason: 'stop' });
    const first = collector.response();
    collector.add({ type: 'tool-call', toolCall: { id: 'c1', name: 'f', arguments: {} } });
    collector.add({ type: 'tool-result', result: { toolCallId: 'c1', name: 'f', success: true, message: 'ok', providerExecuted: true } });
    collector.add({ type: 'warning', warning: { type: 'other', message: 'late' } });
    expect(first.toolCalls).toEqual([]);
    expect(first.toolResults).toEqual([]);
    expect(first.warnings).toEqual([]);
    expect(first.message).toEqual({ role: 'assistant', content: 'a' });
    const second = collector.response();
    expect(second.toolCalls).toHaveLength(1);
    expect(second.message.toolCalls).toEqual(second.toolCalls);
  });

  it('keeps every delta in order, across batches and blocks, with a response taken between any two', () => {
    // Deltas of many sizes (empty, one character, astral, longer than a block), in counts
    // that end at and between the builder's batch and block boundaries.
    const pieces = ['', 'a', 'tok ', '\u{1F600}', 'é', 'x'.repeat(40), 'y'.repeat(1500)];
    for (const count of [1, 7, 8, 9, 63, 64, 65, 300, 1100]) {
      const collector = createResponseCollector();
      collector.add({ type: 'finish', finishReason: 'stop' });
      let expected = '';
      let reasoning = '';
      for (let i = 0; i < count; i++) {
        const delta = pieces[(i * 5 + count) % pieces.length] as string;
        collector.add({ type: 'text-delta', delta });
        expected += delta;
        if (i % 3 === 0) {
          collector.add({ type: 'reasoning-delta', delta: `r${i}` });
          reasoning += `r${i}`;
        }
        if (i % 97 === 0) {
          const response = collector.response();
          expect(response.text).toBe(expected);
          expect(response.reasoning).toBe(reasoning);
        }
      }
      const response = collector.response();
      expect(response.text).toBe(expected);
      expect(response.message.content).toBe(expected);
      expect(response.reasoning).toBe(reasoning);
    }
  });
});

describe('createResponseCollector', () => {
  it('has methods that work detached from it', () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- what this test checks: the methods work detached
    const { add, response } = createResponseCollector();
    const events: ChatStreamEvent[] = [
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', finishReason: 'stop' },
    ];
    events.forEach(add);
    expect(response()).toMatchObject({ text: 'Hello', finishReason: 'stop' });
  });
});
