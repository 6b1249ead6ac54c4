import { describe, expect, it } from 'vitest';
import { completion } from '../test/chat-wire.ts';
import { mapChatFinishReason } from './openai-chat-finish-reason.ts';
import { mapChatResponse } from './openai-chat-response.ts';

let counter = 0;
const options = { generateId: () => `call_gen${++counter}` };

describe('mapChatResponse', () => {
  it('maps text, usage with cached and reasoning tokens, id and model', () => {
    const response = mapChatResponse(completion({ content: 'Hello!' }), options);
    expect(response).toMatchObject({
      text: 'Hello!',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 82, outputTokens: 17, totalTokens: 99, cachedInputTokens: 64, reasoningTokens: 0 },
      message: { role: 'assistant', content: 'Hello!' },
      responseId: 'chatcmpl-BkQ4t0aHn1mSXx8dDqk2Yb3cA1',
      modelId: 'gpt-4.1-mini-2025-04-14',
    });
  });

  it('maps parallel tool calls with parsed arguments, and "" as {}', () => {
    const response = mapChatResponse(
      completion(
        {
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        'tool_calls',
      ),
      options,
    );
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_b', name: 'get_time', arguments: {} },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.message.toolCalls).toEqual(response.toolCalls);
  });

  it('reads a call without `type` or `id` (some compatible servers leave them out) as a function call with an id of ours', () => {
    const wire = completion(
      { tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { id: null, type: 'function', function: { name: 'get_time', arguments: '{}' } }] } as never,
      'tool_calls',
    );
    const response = mapChatResponse(wire, options);
    expect(response.toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
    expect(response.toolCalls[0]?.arguments).toEqual({ city: 'Paris' });
    for (const call of response.toolCalls) expect(call.id).toMatch(/^call_gen\d+$/);
    expect(response.warnings).toEqual([]);
  });

  it('gives a call whose id an earlier call of the turn already has an id of ours', () => {
    const wire = completion(
      {
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
          { id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"a":2}' } },
        ],
      } as never,
      'tool_calls',
    );
    const [first, second] = mapChatResponse(wire, options).toolCalls;
    expect(first).toEqual({ id: 'call_0', name: 'f', arguments: { a: 1 } });
    expect(second?.id).toMatch(/^call_gen\d+$/);
    expect(second?.arguments).toEqual({ a: 2 });
  });

  it("reads Mistral's content parts: text parts as the text, thinking parts as the reasoning", () => {
    const wire = completion({
      content: [
        { type: 'thinking', thinking: [{ type: 'text', text: 'Two and ' }, { type: 'text', text: 'two.' }] },
        { type: 'text', text: 'The answer ' },
        { type: 'image_url', image_url: { url: 'x' } },
        { type: 'text', text: 'is 4.' },
      ],
    } as never);
    const response = mapChatResponse(wire, options);
    expect(response.text).toBe('The answer is 4.');
    expect(response.reasoning).toBe('Two and two.');
    expect(response.message).toMatchObject({ content: 'The answer is 4.', reasoning: 'Two and two.' });
  });

  it('replaces a tool-call id that is not a string, and reads usage counts that are not numbers as missing', () => {
    const wire = completion({ tool_calls: [{ id: 7, type: 'function', function: { name: 'f', arguments: '{}' } }] } as never, 'tool_calls');
    (wire as { usage: unknown }).usage = { prompt_tokens: '12', completion_tokens: 3, total_tokens: [15], prompt_tokens_details: { cached_tokens: 'x' } };
    const response = mapChatResponse(wire, options);
    expect(response.toolCalls[0]?.id).toMatch(/^call_gen\d+$/);
    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 3, totalTokens: 3 });
  });

  it('reports tool-calls for a forced function even though OpenAI says stop', () => {
    const response = mapChatResponse(
      completion({ tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }] }, 'stop'),
      options,
    );
    expect(response.finishReason).toBe('tool-calls');
  });

  it('surfaces malformed arguments as an invalid call, not an exception', () => {
    const response = mapChatResponse(
      completion({ tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a": [1, 2' } }] }, 'tool_calls'),
      options,
    );
    expect(response.toolCalls[0]?.invalid?.rawArguments).toBe('{"a": [1, 2');
  });

  it('reports length over tool-calls and marks the call being written as cut off', () => {
    const response = mapChatResponse(
      completion(
        {
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            { id: 'call_b', type: 'function', function: { name: 'f', arguments: '{"a":' } },
          ],
        },
        'length',
      ),
      options,
    );
    expect(response.finishReason).toBe('length');
    expect(response.toolCalls[0]).toEqual({ id: 'call_a', name: 'f', arguments: { a: 1 } });
    expect(response.toolCalls[1]?.invalid).toBeDefined();
  });

  it('keeps only the first call when parallelToolCalls is false, with a warning', () => {
    const response = mapChatResponse(
      completion(
        {
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        'tool_calls',
      ),
      { ...options, parallelToolCalls: false },
    );
    expect(response.toolCalls.map((call) => call.id)).toEqual(['call_a']);
    expect(response.warnings).toHaveLength(1);
  });

  it('maps a refusal', () => {
    const response = mapChatResponse(completion({ refusal: "I'm sorry, I can't help with that." }), options);
    expect(response.refusal).toBe("I'm sorry, I can't help with that.");
    expect(response.text).toBe('');
  });

  it('reads reasoning_content that compatible servers send', () => {
    const response = mapChatResponse(completion({ content: '4', reasoning_content: '2+2 is 4' } as never), options);
    expect(response.reasoning).toBe('2+2 is 4');
    expect(response.message.reasoning).toBe('2+2 is 4');
  });

  it('reads arguments a server sent as an object, and gives calls without an id one', () => {
    const response = mapChatResponse(
      completion({ tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: { a: 1 } as never } }] }, 'tool_calls'),
      options,
    );
    expect(response.toolCalls[0]?.arguments).toEqual({ a: 1 });
    expect(response.toolCalls[0]?.id).toMatch(/^call_gen/);
  });
});

describe('mapChatFinishReason', () => {
  it('maps each wire reason', () => {
    expect(mapChatFinishReason('stop', false)).toBe('stop');
    expect(mapChatFinishReason('length', true)).toBe('length');
    expect(mapChatFinishReason('tool_calls', false)).toBe('tool-calls');
    expect(mapChatFinishReason('function_call', false)).toBe('tool-calls');
    expect(mapChatFinishReason('content_filter', false)).toBe('content-filter');
    expect(mapChatFinishReason(null, false)).toBe('other');
    expect(mapChatFinishReason('stop', true)).toBe('tool-calls');
  });
});
