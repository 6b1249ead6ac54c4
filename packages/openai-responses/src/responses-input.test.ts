import type { Message } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { toResponsesInput } from './responses-input.ts';

const openai = { provider: 'openai', metadataKey: 'openai', systemMessages: 'instructions' } as const;

describe('toResponsesInput', () => {
  it('maps leading system messages to instructions and a conversation to input items', () => {
    const mapped = toResponsesInput(
      [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use metric units.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Let me check.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', toolCallId: 'call_1', content: '18°C' },
      { role: 'system', content: 'Answer in French.' },
      ],
      openai,
    );
    expect(mapped.instructions).toBe('Be brief.\n\nUse metric units.');
    expect(mapped.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18°C' },
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Answer in French.' }] },
    ]);
  });

  it('maps images to input_image parts', () => {
    const { input } = toResponsesInput([{ role: 'user', content: [{ type: 'text', text: 'What?' }, { type: 'image', image: 'AAAA', mediaType: 'image/jpeg' }] }], openai);
    expect(input[0]).toEqual({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'What?' },
        { type: 'input_image', image_url: 'data:image/jpeg;base64,AAAA', detail: 'auto' },
      ],
    });
  });

  it('replays provider-executed calls as item references, or leaves them out with store: false', () => {
    const messages = [{ role: 'assistant' as const, content: '', toolCalls: [{ id: 'ci_1', name: 'code_interpreter', arguments: {}, providerExecuted: true }] }];
    expect(toResponsesInput(messages, openai).input).toEqual([{ type: 'item_reference', id: 'ci_1' }]);
    const unstored = toResponsesInput(messages, { ...openai, store: false });
    expect(unstored.input).toEqual([]);
    expect(unstored.warnings).toHaveLength(1);
  });

  it('sends reasoning items back with store: false, without their ids, before the turn they belong to', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: {} }],
        providerMetadata: { openai: { reasoningItems: [{ id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAA' }] } },
      },
      { role: 'tool', toolCallId: 'call_1', content: '18°C' },
    ];
    expect(toResponsesInput(messages, { ...openai, store: false }).input.slice(1, 3)).toEqual([
      { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
    ]);
    expect(toResponsesInput(messages, openai).input.some((item) => item.type === 'reasoning')).toBe(false);
  });

  it('maps every system message to a developer message in Codex form and refuses orphan tool results', () => {
    const codex = { provider: 'chatgpt', metadataKey: 'chatgpt', systemMessages: 'developer', requireCallBeforeOutput: true } as const;
    const mapped = toResponsesInput([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], codex);
    expect(mapped.instructions).toBeUndefined();
    expect(mapped.input[0]).toEqual({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] });
    expect(() => toResponsesInput([{ role: 'tool', toolCallId: 'nope', content: 'x' }], codex)).toThrow('No tool call found');
  });
});
