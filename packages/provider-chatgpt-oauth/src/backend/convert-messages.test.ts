import { InvalidRequestError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';

import type { ToolMapping } from '../tools/wire-tool.ts';
import { convertMessages } from './convert-messages.ts';

const passthrough: ToolMapping = { mode: 'passthrough', toUser: new Map(), toWire: new Map(), cliTools: new Set() };

describe('convertMessages', () => {
  it('sends system messages as developer input and user images as input_image', () => {
    expect(
      convertMessages(
        [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', image: 'iVBORw0', mediaType: 'image/png' }] },
        ],
        passthrough,
      ),
    ).toEqual([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is this?' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0' },
        ],
      },
    ]);
  });

  it('pairs function_call and function_call_output by call_id and replays reasoning without item ids', () => {
    const input = convertMessages(
      [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } }],
          providerMetadata: {
            chatgpt: { reasoningItems: [{ id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'enc' }] },
          },
        },
        { role: 'tool', toolCallId: 'call_a', content: '{"temp":3}' },
      ],
      passthrough,
    );
    expect(input.slice(1)).toEqual([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'enc' },
      { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_a', output: '{"temp":3}' },
    ]);
    expect(JSON.stringify(input)).not.toContain('"id"');
  });

  it('rejects a tool result without an earlier call, naming the fix', () => {
    expect(() => convertMessages([{ role: 'tool', toolCallId: 'call_x', content: 'r' }], passthrough)).toThrow(InvalidRequestError);
    expect(() => convertMessages([{ role: 'tool', toolCallId: 'call_x', content: 'r' }], passthrough)).toThrow(/Keep the assistant message/);
  });
});
