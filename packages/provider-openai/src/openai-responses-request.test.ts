import type { ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
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
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Roll two dice.' }] }],
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

  it('ignores provider options that would replace the request, with a warning', () => {
    const { body, warnings } = buildResponsesRequest({
      modelId: 'm',
      request: { messages: [{ role: 'user', content: 'x' }], providerOptions: { openai: { model: 'other', input: [], tools: [], user: 'u' } } },
    });
    expect(body.model).toBe('m');
    expect(body.input).toHaveLength(1);
    expect(body).toMatchObject({ user: 'u' });
    expect(warnings.map((w) => (w.type === 'unsupported-setting' ? w.setting : ''))).toEqual(['providerOptions.openai.model', 'providerOptions.openai.input', 'providerOptions.openai.tools']);
  });

  it('asks for encrypted reasoning with store: false and answers calls left without a result', () => {
    const { body, warnings } = buildResponsesRequest({
      modelId: 'm',
      request: {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: {} }] },
          { role: 'user', content: 'never mind' },
        ],
        providerOptions: { openai: { store: false } },
      },
    });
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    expect(body.input).toContainEqual({ type: 'function_call_output', call_id: 'c1', output: 'aborted' });
    expect(warnings).toHaveLength(1);
  });
});
