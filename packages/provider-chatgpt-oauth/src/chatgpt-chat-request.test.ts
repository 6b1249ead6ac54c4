import { InvalidRequestError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';

import type { Message } from '@toolwire/core';

import { buildChatGPTRequest } from './chatgpt-chat-request.ts';
import type { CatalogModel } from './backend/model-catalog.ts';

const passthrough = 'passthrough';

function convertMessages(messages: Message[], _mode: typeof passthrough): Record<string, unknown>[] {
  return build({ messages }).body.input as Record<string, unknown>[];
}

function build(request: Parameters<typeof buildChatGPTRequest>[0]['request'], options: { effort?: string; model?: CatalogModel } = {}) {
  return buildChatGPTRequest({
    modelId: 'gpt-5.4',
    request,
    settings: options.effort !== undefined ? { reasoningEffort: options.effort as never } : {},
    instructions: 'base',
    conversationId: 'conv',
    model: options.model,
  });
}

describe('buildChatGPTRequest: the conversation', () => {
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
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0', detail: 'auto' },
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

describe('buildChatGPTRequest: what Codex sends', () => {
  it('answers a call left without a result before sending, with a warning', () => {
    const { body, warnings } = build({
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: {} }] },
        { role: 'user', content: 'forget it' },
      ],
    });
    expect(body.input).toContainEqual({ type: 'function_call_output', call_id: 'call_a', output: 'aborted' });
    expect(warnings.some((w) => w.message.includes('no result'))).toBe(true);
  });

  it("takes the model's catalog default effort, and remaps a level the model does not take", () => {
    const model: CatalogModel = { slug: 'gpt-5.4', defaultEffort: 'low', supportedEfforts: ['low', 'medium', 'high'] };
    expect(build({ messages: [] }, { model }).body.reasoning).toEqual({ effort: 'low', summary: 'auto' });
    expect(build({ messages: [] }).body.reasoning).toEqual({ effort: 'medium', summary: 'auto' });
    const remapped = build({ messages: [] }, { model, effort: 'minimal' });
    expect(remapped.body.reasoning).toEqual({ effort: 'low', summary: 'auto' });
    expect(remapped.warnings[0]).toMatchObject({ type: 'unsupported-setting', setting: 'reasoningEffort' });
    expect(build({ messages: [] }, { model, effort: 'xhigh' }).body.reasoning).toEqual({ effort: 'high', summary: 'auto' });
  });

  it('refuses a reasoning effort that does not exist', () => {
    expect(() => build({ messages: [] }, { effort: 'maximum' })).toThrow(InvalidRequestError);
    expect(() => build({ messages: [] }, { effort: 'maximum' })).toThrow(/does not exist/);
  });

  it('sends strict tools in the strict schema form', () => {
    const { body } = build({
      messages: [],
      tools: [{ type: 'function', name: 'f', strict: true, inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }],
    });
    expect(body.tools).toEqual([
      { type: 'function', name: 'f', strict: true, parameters: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false } },
    ]);
  });
});
