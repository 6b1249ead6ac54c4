import { describe, expect, it } from 'vitest';
import { AnswerLimit, DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_TOOL_CALLS_PER_ANSWER, resolveAnswerLimits } from './answer-limit.ts';
import { AnswerTooLargeError } from './errors.ts';
import type { ChatResponse } from './types/chat-response.ts';

const settings = { chars: 'maxAnswerChars', toolCalls: 'maxToolCallsPerAnswer' };

function thrown(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('AnswerLimit', () => {
  it('lets an answer reach its bound and stops it one character past', () => {
    const limit = new AnswerLimit({ maxChars: 10, maxToolCalls: 0, settings });
    limit.addChars(4);
    limit.addEvent({ type: 'text-delta', delta: 'abcdef' });
    const error = thrown(() => limit.addEvent({ type: 'reasoning-delta', delta: 'x' }));
    expect(AnswerTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ limit: 'chars', max: 10, setting: 'maxAnswerChars' });
    expect((error as Error).message).toMatch(/more than 10 characters in one answer.*raise maxAnswerChars\.$/su);
  });

  it('counts arguments deltas as characters and calls at their start', () => {
    const limit = new AnswerLimit({ maxChars: 100, maxToolCalls: 2, settings, provider: 'openai' });
    limit.addEvent({ type: 'tool-call-start', id: 'a', name: 'f' });
    limit.addEvent({ type: 'tool-call-delta', id: 'a', argumentsDelta: '{"q":"x"}' });
    limit.addEvent({ type: 'tool-call-start', id: 'b', name: 'f' });
    const error = thrown(() => limit.addEvent({ type: 'tool-call-start', id: 'c', name: 'f' }));
    expect(error).toMatchObject({ limit: 'tool-calls', max: 2, setting: 'maxToolCallsPerAnswer' });
    expect((error as Error).message).toMatch(/^The openai model made more than 2 tool calls in one answer/u);
  });

  it('names Mi for whole mebi-characters', () => {
    const limit = new AnswerLimit({ maxChars: 4 * 1024 * 1024, maxToolCalls: 0, settings });
    expect((thrown(() => limit.addChars(4 * 1024 * 1024 + 1)) as Error).message).toContain('more than 4 Mi characters');
  });

  it('treats 0 as no bound', () => {
    const limit = new AnswerLimit({ maxChars: 0, maxToolCalls: 0, settings });
    limit.addChars(Number.MAX_SAFE_INTEGER);
    for (let i = 0; i < 5000; i++) limit.addToolCall();
  });

  it('counts a whole answer: text, reasoning, and each call with its arguments', () => {
    const response = {
      text: 'abc',
      reasoning: 'de',
      toolCalls: [{ id: '1', name: 'f', arguments: { q: 'x' } }],
    } as unknown as ChatResponse;
    expect(thrown(() => new AnswerLimit({ maxChars: 14, maxToolCalls: 1, settings }).addResponse(response))).toBeUndefined();
    expect(thrown(() => new AnswerLimit({ maxChars: 13, maxToolCalls: 1, settings }).addResponse(response))).toMatchObject({ limit: 'chars' });
    expect(thrown(() => new AnswerLimit({ maxChars: 0, maxToolCalls: 0, settings }).addResponse({ ...response, toolCalls: [...response.toolCalls, ...response.toolCalls] }))).toBeUndefined();
  });
});

describe('resolveAnswerLimits', () => {
  it('gives the defaults when absent', () => {
    expect(resolveAnswerLimits({}, settings)).toEqual({ maxChars: DEFAULT_MAX_ANSWER_CHARS, maxToolCalls: DEFAULT_MAX_TOOL_CALLS_PER_ANSWER });
    expect(DEFAULT_MAX_ANSWER_CHARS).toBe(4 * 1024 * 1024);
    expect(DEFAULT_MAX_TOOL_CALLS_PER_ANSWER).toBe(1024);
  });

  it('takes 0 and whole numbers, and refuses anything else naming the setting', () => {
    expect(resolveAnswerLimits({ maxAnswerChars: 0, maxToolCallsPerAnswer: 7 }, settings)).toEqual({ maxChars: 0, maxToolCalls: 7 });
    expect(() => resolveAnswerLimits({ maxAnswerChars: -1 }, settings)).toThrow(/^maxAnswerChars must be a whole number \(0 turns the limit off\); got -1\.$/u);
    expect(() => resolveAnswerLimits({ maxToolCallsPerAnswer: 2.5 }, settings)).toThrow(/maxToolCallsPerAnswer/u);
    expect(() => resolveAnswerLimits({ maxAnswerChars: Number.POSITIVE_INFINITY }, settings)).toThrow(RangeError);
  });
});
