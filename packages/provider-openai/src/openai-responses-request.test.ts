import { InvalidToolConfigError, ProviderToolMismatchError } from '@toolwire/core';
import type { ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { toResponsesInput } from './openai-responses-input.ts';
import { mapResponsesToolChoice, prepareResponsesTools } from './openai-responses-prepare-tools.ts';
import { buildResponsesRequest } from './openai-responses-request.ts';

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } } },
};

const codeInterpreter: ProviderTool = {
  type: 'provider',
  provider: 'openai',
  id: 'openai.code_interpreter',
  name: 'code_interpreter',
  config: { wireTool: { type: 'code_interpreter', container: { type: 'auto', memory_limit: '4g' } }, include: ['code_interpreter_call.outputs'] },
};

describe('prepareResponsesTools', () => {
  it('maps function tools to the flat form and puts wireTool in tools as is', () => {
    const prepared = prepareResponsesTools([weather, { ...weather, name: 'strict_one', strict: true }, codeInterpreter], undefined);
    expect(prepared.tools).toEqual([
      { type: 'function', name: 'get_weather', parameters: weather.inputSchema, strict: false },
      {
        type: 'function',
        name: 'strict_one',
        parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'], additionalProperties: false },
        strict: true,
      },
      { type: 'code_interpreter', container: { type: 'auto', memory_limit: '4g' } },
    ]);
    expect(prepared.include).toEqual(['code_interpreter_call.outputs']);
    expect(prepared.providerTools[0]?.itemType).toBe('code_interpreter_call');
  });

  it('rejects a provider tool bound to another provider before any request', () => {
    expect(() => prepareResponsesTools([{ ...codeInterpreter, provider: 'ollama', name: 'ollama_search' }], undefined)).toThrow(ProviderToolMismatchError);
  });

  it('rejects an OpenAI provider tool without a wireTool', () => {
    expect(() => prepareResponsesTools([{ ...codeInterpreter, config: {} }], undefined)).toThrow(InvalidToolConfigError);
    expect(() => prepareResponsesTools([{ ...codeInterpreter, config: { wireTool: { type: 'x' }, include: 'y' } }], undefined)).toThrow(InvalidToolConfigError);
  });

  it('maps tool choice to the flat Responses forms, provider tools to the hosted form', () => {
    const { providerTools } = prepareResponsesTools([codeInterpreter], undefined);
    expect(mapResponsesToolChoice('required', providerTools)).toBe('required');
    expect(mapResponsesToolChoice({ type: 'tool', name: 'get_weather' }, providerTools)).toEqual({ type: 'function', name: 'get_weather' });
    expect(mapResponsesToolChoice({ type: 'tool', name: 'code_interpreter' }, providerTools)).toEqual({ type: 'code_interpreter' });
  });
});

describe('toResponsesInput', () => {
  it('maps leading system messages to instructions and a conversation to input items', () => {
    const mapped = toResponsesInput([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use metric units.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Let me check.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', toolCallId: 'call_1', content: '18°C' },
      { role: 'system', content: 'Answer in French.' },
    ]);
    expect(mapped.instructions).toBe('Be brief.\n\nUse metric units.');
    expect(mapped.input).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Let me check.' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18°C' },
      { role: 'system', content: 'Answer in French.' },
    ]);
  });

  it('maps images to input_image parts', () => {
    const { input } = toResponsesInput([{ role: 'user', content: [{ type: 'text', text: 'What?' }, { type: 'image', image: 'AAAA', mediaType: 'image/jpeg' }] }]);
    expect(input[0]).toEqual({
      role: 'user',
      content: [
        { type: 'input_text', text: 'What?' },
        { type: 'input_image', image_url: 'data:image/jpeg;base64,AAAA', detail: 'auto' },
      ],
    });
  });

  it('replays provider-executed calls as item references, or leaves them out with store: false', () => {
    const messages = [{ role: 'assistant' as const, content: '', toolCalls: [{ id: 'ci_1', name: 'code_interpreter', arguments: {}, providerExecuted: true }] }];
    expect(toResponsesInput(messages).input).toEqual([{ type: 'item_reference', id: 'ci_1' }]);
    const unstored = toResponsesInput(messages, { store: false });
    expect(unstored.input).toEqual([]);
    expect(unstored.warnings).toHaveLength(1);
  });
});

describe('buildResponsesRequest', () => {
  it('maps settings, tools, include and provider options', () => {
    const { body, warnings, providerTools } = buildResponsesRequest({
      modelId: 'gpt-5-nano',
      request: {
        messages: [{ role: 'user', content: 'Roll two dice.' }],
        tools: [codeInterpreter, weather],
        toolChoice: { type: 'tool', name: 'code_interpreter' },
        parallelToolCalls: false,
        maxOutputTokens: 500,
        temperature: 0.5,
        topP: 0.8,
        stop: ['x'],
        providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low' } } },
      },
    });
    expect(body).toMatchObject({
      model: 'gpt-5-nano',
      input: [{ role: 'user', content: 'Roll two dice.' }],
      tool_choice: { type: 'code_interpreter' },
      parallel_tool_calls: false,
      max_output_tokens: 500,
      temperature: 0.5,
      top_p: 0.8,
      store: false,
      reasoning: { effort: 'low' },
      include: ['code_interpreter_call.outputs', 'reasoning.encrypted_content'],
    });
    expect(warnings).toEqual([expect.objectContaining({ type: 'unsupported-setting', setting: 'stop' })]);
    expect(providerTools).toHaveLength(1);
  });

  it('maps the JSON response format to text.format', () => {
    const schema = { type: 'object' as const };
    expect(buildResponsesRequest({ modelId: 'm', request: { messages: [], responseFormat: { type: 'json', schema } } }).body.text).toEqual({
      format: { type: 'json_schema', name: 'response', schema, strict: false },
    });
  });
});
