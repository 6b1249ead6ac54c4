import type { Message } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { GatewayError } from './gateway-error.ts';
import { parseResponsesRequest } from './parse-responses-request.ts';
import type { ResponsesHistory } from './parse-responses-request.ts';

function rejection(body: unknown, history?: ResponsesHistory): GatewayError {
  try {
    parseResponsesRequest(body, history === undefined ? {} : { history });
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

const weather = { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true };

describe('parseResponsesRequest', () => {
  it('maps a string input and instructions to a system and a user message', () => {
    const parsed = parseResponsesRequest({ model: 'ollama/qwen3', instructions: 'Be brief.', input: 'Hi' });
    expect(parsed.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(parsed.stream).toBe(false);
    expect(parsed.echo).toMatchObject({ instructions: 'Be brief.', store: true, tool_choice: 'auto', parallel_tool_calls: true, text: { format: { type: 'text' } } });
  });

  it('maps message items with input_text and input_image parts, developer as system', () => {
    const parsed = parseResponsesRequest({
      model: 'm',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }] },
        { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'A square.', annotations: [] }] },
      ],
    });
    expect(parsed.messages).toEqual([
      { role: 'system', content: 'Rules.' },
      { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', image: 'data:image/png;base64,AAAA' }] },
      { role: 'assistant', content: 'A square.' },
    ]);
  });

  it('joins function_call items to the assistant turn and answers them with function_call_output', () => {
    const parsed = parseResponsesRequest({
      model: 'm',
      input: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '21 C' }] },
      ],
      tools: [weather],
    });
    expect(parsed.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_2', name: 'get_weather', arguments: { city: 'Rome' } },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: '18 C' },
      { role: 'tool', toolCallId: 'call_2', toolName: 'get_weather', content: '21 C' },
    ]);
  });

  it('refuses an output for an unknown call and a call without output, as OpenAI does', () => {
    expect(rejection({ model: 'm', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'x' }] }).message).toContain(
      'No tool call found for function call output with call_id call_x',
    );
    const unanswered = rejection({ model: 'm', input: [{ type: 'function_call', call_id: 'call_y', name: 'f', arguments: '{}' }, { role: 'user', content: 'next' }] });
    expect(unanswered.message).toContain('No tool output found for function call call_y');
    expect(unanswered.param).toBe('input[1]');
  });

  it('keeps function tools as the client wrote them and tells name-only entries apart', () => {
    const parsed = parseResponsesRequest({ model: 'm', input: 'x', tools: [weather, { type: 'function', name: 'calculate' }] });
    expect(parsed.tools).toEqual([
      {
        spec: { type: 'function', name: 'get_weather', description: 'Weather for a city', inputSchema: weather.parameters, strict: true },
        param: 'tools[0]',
        index: 0,
        definition: 'with-parameters',
        kind: 'function',
      },
      { spec: { type: 'function', name: 'calculate', inputSchema: { type: 'object', properties: {} } }, param: 'tools[1]', index: 1, definition: 'name-only', kind: 'function' },
    ]);
  });

  it('offers a custom (freeform) tool as a function with one string argument, its grammar in the description', () => {
    const parsed = parseResponsesRequest({
      model: 'm',
      input: 'x',
      tools: [{ type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch"' } }],
    });
    const [tool] = parsed.tools;
    expect(tool?.kind).toBe('custom');
    expect(tool?.spec.inputSchema).toEqual({ type: 'object', properties: { input: { type: 'string', description: 'The input to apply_patch.' } }, required: ['input'], additionalProperties: false });
    expect(tool?.spec.description).toContain('Edit files.');
    expect(tool?.spec.description).toContain('start: "*** Begin Patch"');
    expect(tool?.spec.description).toContain("string argument 'input'");
  });

  it('replays custom tool calls with their input as the one argument', () => {
    const parsed = parseResponsesRequest({
      model: 'm',
      input: [
        { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'call_p', output: 'Done' },
      ],
    });
    expect(parsed.messages).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_p', name: 'apply_patch', arguments: { input: '*** Begin Patch' } }] },
      { role: 'tool', toolCallId: 'call_p', toolName: 'apply_patch', content: 'Done' },
    ]);
  });

  it('flattens namespace tools into their functions, remembering the namespace', () => {
    const parsed = parseResponsesRequest({
      model: 'm',
      input: 'x',
      tools: [{ type: 'namespace', name: 'multi_agent_v1', description: 'Agents', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }] }],
    });
    expect(parsed.tools).toMatchObject([{ spec: { name: 'spawn_agent' }, param: 'tools[0].tools[0]', namespace: 'multi_agent_v1', definition: 'with-parameters' }]);
  });

  it('answers hosted tool types with a 400 naming them', () => {
    const error = rejection({ model: 'm', input: 'x', tools: [weather, { type: 'web_search', external_web_access: false }] });
    expect(error.status).toBe(400);
    expect(error.param).toBe('tools[1].type');
    expect(error.message).toContain("'web_search'");
    expect(error.message).toContain('web_search = "disabled"');
    expect(rejection({ model: 'm', input: 'x', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }).message).toContain("'code_interpreter'");
  });

  it('maps tool_choice: named, allowed_tools, none, and refuses unknown names', () => {
    const tools = [weather, { type: 'function', name: 'other', parameters: { type: 'object', properties: {} } }];
    expect(parseResponsesRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'get_weather' } }).toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
    const allowed = parseResponsesRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'other' }] } });
    expect(allowed.toolChoice).toBe('required');
    expect(allowed.tools.map((t) => t.spec.name)).toEqual(['other']);
    expect(parseResponsesRequest({ model: 'm', input: 'x', tools, tool_choice: 'none' }).toolChoice).toBe('none');
    expect(rejection({ model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'nope' } }).message).toContain("tool 'nope' is not in 'tools'");
    expect(rejection({ model: 'm', input: 'x', tools, tool_choice: { type: 'web_search_preview' } }).status).toBe(400);
  });

  it('maps settings: text.format json_schema, max_output_tokens, parallel_tool_calls', () => {
    const parsed = parseResponsesRequest({
      model: 'm',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { a: { type: 'number' } } }, strict: true } },
      max_output_tokens: 100,
      parallel_tool_calls: false,
      temperature: 0.2,
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      metadata: { team: 'a' },
      prompt_cache_key: 'k',
      store: false,
    });
    expect(parsed).toMatchObject({
      responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' } },
      maxOutputTokens: 100,
      parallelToolCalls: false,
      temperature: 0.2,
      echo: { reasoning: { effort: 'low', summary: 'auto' }, metadata: { team: 'a' }, prompt_cache_key: 'k', store: false, max_output_tokens: 100 },
    });
  });

  it('refuses what it cannot do by name', () => {
    expect(rejection({ model: 'm', input: 'x', background: true }).param).toBe('background');
    expect(rejection({ model: 'm', input: 'x', conversation: 'conv_1' }).param).toBe('conversation');
    expect(rejection({ model: 'm', input: [{ type: 'input_file', file_id: 'f' }] }).param).toBe('input[0].type');
    expect(rejection({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }).message).toContain("'file_id'");
    expect(rejection({ input: 'x' }).param).toBe('model');
    expect(rejection({ model: 'm' }).param).toBe('input');
  });

  it('continues a stored conversation (previous_response_id) and resolves item references', () => {
    const previous: Message[] = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
    ];
    const history: ResponsesHistory = {
      conversation: (id) => (id === 'resp_1' ? previous : undefined),
      item: (id) => (id === 'msg_9' ? { type: 'message', id: 'msg_9', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Earlier.', annotations: [] }] } : undefined),
    };
    const parsed = parseResponsesRequest({ model: 'm', previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_1', output: '18 C' }] }, { history });
    expect(parsed.messages.slice(2)).toEqual([{ role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: '18 C' }]);
    expect(parsed.echo.previous_response_id).toBe('resp_1');
    const referenced = parseResponsesRequest({ model: 'm', input: [{ role: 'user', content: 'a' }, { type: 'item_reference', id: 'msg_9' }, { role: 'user', content: 'b' }] }, { history });
    expect(referenced.messages[1]).toEqual({ role: 'assistant', content: 'Earlier.' });
    expect(rejection({ model: 'm', previous_response_id: 'resp_2', input: 'x' }, history).code).toBe('previous_response_not_found');
    expect(rejection({ model: 'm', input: [{ type: 'item_reference', id: 'msg_0' }] }, history).message).toContain('not found');
  });
});
