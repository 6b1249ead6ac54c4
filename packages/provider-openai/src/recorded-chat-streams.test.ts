// Real recorded Chat Completions streams (OpenAI, DeepSeek, Groq, xAI; sources and licence
// in __fixtures__/SOURCES.md) replayed through the stream mapper.
import { readFileSync } from 'node:fs';
import type { ChatStreamEvent } from '@toolwire/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { createChatStreamMapper } from './openai-chat-stream.ts';

function chunks(name: string): ChatCompletionChunk[] {
  return readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ChatCompletionChunk);
}

function replay(name: string): ChatStreamEvent[] {
  const mapper = createChatStreamMapper({ generateId: () => 'call_generated' });
  return [...chunks(name).flatMap((chunk) => mapper.push(chunk)), ...mapper.end()];
}

function only<T extends ChatStreamEvent['type']>(events: ChatStreamEvent[], type: T): Extract<ChatStreamEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ChatStreamEvent, { type: T }> => event.type === type);
}

describe('recorded Chat Completions streams', () => {
  it('OpenAI gpt-4.1-nano: text, a stop finish, and usage from the trailing chunk', () => {
    const events = replay('openai-text.chunks.txt');
    expect(only(events, 'text-delta').map((event) => event.delta).join('').length).toBeGreaterThan(500);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 16, outputTokens: 300, totalTokens: 316 } });
  });

  it('DeepSeek reasoner: reasoning, then a call whose arguments arrive in fragments', () => {
    const events = replay('deepseek-tool-call.chunks.txt');
    expect(only(events, 'reasoning-delta').length).toBeGreaterThan(0);
    const [call] = only(events, 'tool-call');
    expect(call?.toolCall).toMatchObject({ name: 'weather', arguments: { location: 'San Francisco' } });
    expect(
      only(events, 'tool-call-delta')
        .map((event) => event.argumentsDelta)
        .join(''),
    ).toBe('{"location": "San Francisco"}');
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { inputTokens: 339, outputTokens: 83, totalTokens: 422, cachedInputTokens: 320, reasoningTokens: 39 },
    });
  });

  it('Groq llama-3.3: a whole call in one chunk with empty arguments, usage on the finish chunk', () => {
    const events = replay('groq-tool-call.chunks.txt');
    expect(only(events, 'tool-call').map((event) => event.toolCall)).toEqual([{ id: 'tk85n1k4m', name: 'weather', arguments: {} }]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 210, outputTokens: 15 } });
  });

  it('xAI grok-3-mini: reasoning content, then the call in one chunk', () => {
    const events = replay('xai-tool-call.chunks.txt');
    expect(only(events, 'reasoning-delta').length).toBeGreaterThan(0);
    expect(only(events, 'tool-call').map((event) => event.toolCall)).toEqual([{ id: 'call_55117580', name: 'weather', arguments: { location: 'San Francisco' } }]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });
});
