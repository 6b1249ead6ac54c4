import type { ChatResponse } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { toChatCompletion } from './chat-completion.ts';

const identity = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'ollama/qwen3' };

function response(overrides: Partial<ChatResponse>): ChatResponse {
  return { text: '', toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: '' }, ...overrides };
}

describe('toChatCompletion', () => {
  it('answers text with refusal null, logprobs null and usage in OpenAI names', () => {
    const completion = toChatCompletion(identity, response({ text: 'Hi', usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } }));
    expect(completion).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'ollama/qwen3',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
  });

  it('leaves usage out when the upstream reported none, rather than zeros', () => {
    expect('usage' in toChatCompletion(identity, response({ text: 'Hi' }))).toBe(false);
  });

  it('sends content null, arguments as JSON strings and finish reason tool_calls when the turn is only calls', () => {
    const completion = toChatCompletion(identity, response({ toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 1, b: 2 } }], finishReason: 'stop' }));
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":2}' } }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('keeps the text beside calls', () => {
    const completion = toChatCompletion(identity, response({ text: 'Let me add.', toolCalls: [{ id: 'call_1', name: 'add', arguments: {} }] }));
    expect(completion.choices[0]?.message.content).toBe('Let me add.');
  });

  it('reports length when the answer was cut', () => {
    expect(toChatCompletion(identity, response({ text: 'abc', finishReason: 'length' })).choices[0]?.finish_reason).toBe('length');
  });

  it('passes a refusal through', () => {
    expect(toChatCompletion(identity, response({ refusal: 'I cannot help with that.' })).choices[0]?.message.refusal).toBe('I cannot help with that.');
  });
});
