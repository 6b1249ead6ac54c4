import { describe, expect, it } from 'vitest';
import type { Message } from '../types/message.ts';
import { answerUnansweredToolCalls } from './answer-unanswered-tool-calls.ts';

describe('answerUnansweredToolCalls', () => {
  it('returns the same array when every call is answered', () => {
    const messages: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: {} }] },
      { role: 'tool', toolCallId: 'a', content: 'ok' },
    ];
    const result = answerUnansweredToolCalls(messages);
    expect(result.messages).toBe(messages);
    expect(result.warnings).toEqual([]);
  });

  it('answers a missing call after the turn and its own answers, with a warning', () => {
    const messages: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: {} }, { id: 'b', name: 'g', arguments: {} }] },
      { role: 'tool', toolCallId: 'a', content: 'ok' },
      { role: 'user', content: 'go on' },
    ];
    const result = answerUnansweredToolCalls(messages);
    expect(result.messages.map((m) => (m.role === 'tool' ? `tool:${m.toolCallId}:${m.content}` : m.role))).toEqual([
      'user',
      'assistant',
      'tool:a:ok',
      'tool:b:aborted',
      'user',
    ]);
    expect(result.warnings[0]?.message).toContain('g');
  });

  it('leaves provider-executed calls alone', () => {
    const messages: Message[] = [{ role: 'assistant', content: '', toolCalls: [{ id: 'ci', name: 'code_interpreter', arguments: {}, providerExecuted: true }] }];
    expect(answerUnansweredToolCalls(messages).messages).toBe(messages);
  });
});
