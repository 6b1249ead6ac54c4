// Real recorded Responses streams replayed through the shared decoder (OpenAI's code
// interpreter run is in responses-stream.test.ts): what the events carry, from Azure OpenAI
// from a gpt-5 run with reasoning items and an image output, and from xAI with store: false.
import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { cassetteSse, chunkEvents, sseEvents } from '../test/recorded-streams.ts';
import { createResponsesStreamDecoder } from './responses-stream.ts';
import type { ResponsesStreamPart } from './responses-stream.ts';
import { prepareResponsesTools } from './responses-tools.ts';
import { toResponsesInput } from './responses-input.ts';
import { codeInterpreter } from '../test/code-interpreter-tool.ts';

function replay(events: Record<string, unknown>[]): ResponsesStreamPart[] {
  const decoder = createResponsesStreamDecoder({
    provider: 'openai',
    metadataKey: 'openai',
    providerTools: prepareResponsesTools([codeInterpreter], undefined).providerTools,
  });
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

function finishOf(parts: ResponsesStreamPart[]): Extract<ChatStreamEvent, { type: 'finish' }> {
  const last = parts.at(-1);
  if (last?.type !== 'finish') throw new Error(`expected a finish, got ${JSON.stringify(last)}`);
  return last;
}

describe('recorded Responses streams through the shared decoder', () => {
  it('Azure OpenAI (gpt-5-mini): one code-interpreter call with logs, text, usage', () => {
    const parts = replay(chunkEvents('azure-code-interpreter-tool.1.chunks.txt'));
    const calls = parts.filter((part) => part.type === 'tool-call');
    expect(calls).toHaveLength(1);
    const outputs = parts.filter((part) => part.type === 'provider-output');
    expect(outputs).toHaveLength(1);
    expect(JSON.stringify(outputs[0])).toContain('logs');
    expect(parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThan(0);
    expect(finishOf(parts)).toMatchObject({
      finishReason: 'stop',
      usage: { inputTokens: 2143, outputTokens: 919, totalTokens: 3062, cachedInputTokens: 1280, reasoningTokens: 576 },
      responseId: 'resp_0ad69c3c5fcb01f60068eba78cacd08193bf9a57724aa55ab8',
    });
  });

  it('OpenAI gpt-5 with reasoning and an image output: reasoning items kept for replay, image outputs, annotations', () => {
    const parts = replay(sseEvents(cassetteSse('test_openai_responses_code_execution_return_image_stream.yaml')));
    const finish = finishOf(parts);
    expect(finish.usage).toEqual({ inputTokens: 2772, outputTokens: 1166, totalTokens: 3938, cachedInputTokens: 0, reasoningTokens: 896 });
    const reasoningItems = finish.providerMetadata?.['openai']?.['reasoningItems'] as Record<string, unknown>[];
    expect(reasoningItems.length).toBeGreaterThan(0);
    for (const item of reasoningItems) {
      expect(item).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gAAAAA/) });
      expect(item).not.toHaveProperty('id');
    }
    const output = parts.find((part) => part.type === 'provider-output');
    expect(JSON.stringify(output)).toContain('data:image/png;base64,iVBORw0KGgo');
    expect((finish.providerMetadata?.['openai']?.['annotations'] as unknown[]).length).toBe(2);

    // The next request (store: false) sends those reasoning items back before the turn.
    const input = toResponsesInput(
      [
        { role: 'user', content: 'Create a chart of y=x^2 for x=-5 to 5' },
        { role: 'assistant', content: 'Here it is.', providerMetadata: finish.providerMetadata ?? {} },
        { role: 'user', content: 'Now y=x^3.' },
      ],
      { provider: 'openai', metadataKey: 'openai', systemMessages: 'instructions', store: false },
    ).input;
    expect(input.filter((item) => item.type === 'reasoning')).toHaveLength(reasoningItems.length);
  });

  it('xAI with store: false: reasoning summaries stream, the reasoning item is kept with its encrypted content', () => {
    const parts = replay(chunkEvents('xai-text-with-reasoning-streaming-store-false.1.chunks.txt'));
    expect(parts.filter((part) => part.type === 'reasoning-delta').length).toBeGreaterThan(10);
    const text = parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
    expect(text).toContain('Sonoran');
    const finish = finishOf(parts);
    expect(finish.usage).toEqual({ inputTokens: 216, outputTokens: 831, totalTokens: 1047, cachedInputTokens: 192, reasoningTokens: 253 });
    const [item] = finish.providerMetadata?.['openai']?.['reasoningItems'] as Record<string, unknown>[];
    expect(item).toMatchObject({ type: 'reasoning', encrypted_content: expect.any(String) });
    expect(item).not.toHaveProperty('id');
  });
});
