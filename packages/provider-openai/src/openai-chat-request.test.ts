import { ProviderToolMismatchError } from '@toolwire/core';
import type { ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { toChatMessages } from './openai-chat-messages.ts';
import { mapChatToolChoice, prepareChatTools } from './openai-chat-prepare-tools.ts';
import { buildChatRequest } from './openai-chat-request.ts';

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] },
};

const codeInterpreter: ProviderTool = {
  type: 'provider',
  provider: 'openai',
  id: 'openai.code_interpreter',
  name: 'code_interpreter',
  config: { wireTool: { type: 'code_interpreter', container: { type: 'auto' } } },
};

describe('prepareChatTools', () => {
  it('maps function tools to the nested Chat form', () => {
    expect(prepareChatTools([weather], undefined).tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weather.inputSchema } },
    ]);
  });

  it('sends strict tools with a strict schema', () => {
    const [tool] = prepareChatTools([{ ...weather, strict: true }], undefined).tools ?? [];
    expect(tool).toMatchObject({ function: { strict: true, parameters: { additionalProperties: false, required: ['city'] } } });
  });

  it('sends no tools for an empty list', () => {
    expect(prepareChatTools([], 'auto')).toEqual({ tools: undefined, toolChoice: undefined, warnings: [] });
  });

  it('rejects a provider tool bound to another provider, naming it', () => {
    const foreign: ProviderTool = { ...codeInterpreter, provider: 'anthropic', name: 'bash' };
    expect(() => prepareChatTools([weather, foreign], undefined)).toThrow(ProviderToolMismatchError);
    expect(() => prepareChatTools([weather, foreign], undefined)).toThrow(/"bash"/);
  });

  it('warns that OpenAI provider tools need the Responses API', () => {
    const prepared = prepareChatTools([weather, codeInterpreter], undefined);
    expect(prepared.tools).toHaveLength(1);
    expect(prepared.warnings).toEqual([expect.objectContaining({ type: 'unsupported-tool', toolName: 'code_interpreter' })]);
  });

  it('maps every tool choice form', () => {
    expect(mapChatToolChoice('auto')).toBe('auto');
    expect(mapChatToolChoice('none')).toBe('none');
    expect(mapChatToolChoice('required')).toBe('required');
    expect(mapChatToolChoice({ type: 'tool', name: 'get_weather' })).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(mapChatToolChoice(undefined)).toBeUndefined();
  });
});

describe('toChatMessages', () => {
  it('maps system, user, assistant with calls, and tool messages', () => {
    const { messages } = toChatMessages([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_b', name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', content: '18°C' },
      { role: 'tool', toolCallId: 'call_b', content: '24°C' },
      { role: 'assistant', content: 'Paris 18°C, Rome 24°C.' },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18°C' },
      { role: 'tool', tool_call_id: 'call_b', content: '24°C' },
      { role: 'assistant', content: 'Paris 18°C, Rome 24°C.' },
    ]);
  });

  it('sends system messages as developer messages when asked', () => {
    expect(toChatMessages([{ role: 'system', content: 'x' }], 'developer').messages).toEqual([{ role: 'developer', content: 'x' }]);
  });

  it('maps image parts to image_url, turning raw base64 into a data URL', () => {
    const { messages } = toChatMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', image: 'https://example.com/cat.png' },
          { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
      },
    ]);
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    });
  });

  it('leaves out provider-executed calls with a warning', () => {
    const { messages, warnings } = toChatMessages([
      { role: 'assistant', content: 'Done.', toolCalls: [{ id: 'ci_1', name: 'code_interpreter', arguments: {}, providerExecuted: true }] },
    ]);
    expect(messages).toEqual([{ role: 'assistant', content: 'Done.' }]);
    expect(warnings).toHaveLength(1);
  });
});

describe('buildChatRequest', () => {
  it('maps sampling settings, tools, tool choice and parallel calls', () => {
    const { body } = buildChatRequest({
      modelId: 'gpt-4.1-mini',
      stream: false,
      request: {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [weather],
        toolChoice: 'required',
        parallelToolCalls: false,
        maxOutputTokens: 256,
        temperature: 0.2,
        topP: 0.9,
        stop: ['END'],
        seed: 7,
      },
    });
    expect(body).toMatchObject({
      model: 'gpt-4.1-mini',
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_completion_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
    });
    expect(body.stream_options).toBeUndefined();
  });

  it('leaves out tool_choice and parallel_tool_calls when there are no tools', () => {
    const { body } = buildChatRequest({
      modelId: 'm',
      stream: true,
      request: { messages: [{ role: 'user', content: 'hi' }], toolChoice: 'auto', parallelToolCalls: true },
    });
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it('uses max_tokens for compatible servers when asked', () => {
    const { body } = buildChatRequest({ modelId: 'm', stream: false, maxTokensParameter: 'max_tokens', request: { messages: [], maxOutputTokens: 9 } });
    expect(body).toMatchObject({ max_tokens: 9 });
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('maps the JSON response format with and without a schema', () => {
    const schema = { type: 'object' as const, properties: { a: { type: 'string' as const } } };
    expect(buildChatRequest({ modelId: 'm', stream: false, request: { messages: [], responseFormat: { type: 'json', schema, name: 'thing' } } }).body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'thing', schema },
    });
    expect(buildChatRequest({ modelId: 'm', stream: false, request: { messages: [], responseFormat: { type: 'json' } } }).body.response_format).toEqual({
      type: 'json_object',
    });
  });

  it('merges providerOptions.openai into the body as given', () => {
    const { body } = buildChatRequest({ modelId: 'm', stream: false, request: { messages: [], providerOptions: { openai: { reasoning_effort: 'low' }, ollama: { think: true } } } });
    expect(body).toMatchObject({ reasoning_effort: 'low' });
    expect(body).not.toHaveProperty('think');
  });
});
