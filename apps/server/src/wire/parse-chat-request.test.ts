import { describe, expect, it } from 'vitest';
import { GatewayError } from './gateway-error.ts';
import { parseChatRequest } from './parse-chat-request.ts';

const user = { role: 'user', content: 'hi' };
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} }, ...extra },
});

function refusal(body: unknown): GatewayError {
  try {
    parseChatRequest(body);
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('parseChatRequest refuses', () => {
  const cases: [string, unknown, { param: string | null; code: string | null; message?: RegExp }][] = [
    ['a body that is not an object', [1, 2], { param: null, code: 'invalid_type' }],
    ['a missing model', { messages: [user] }, { param: 'model', code: 'missing_required_parameter' }],
    ['a model that is not a string', { model: 5, messages: [user] }, { param: 'model', code: 'invalid_type' }],
    ['missing messages', { model: 'm/x' }, { param: 'messages', code: 'missing_required_parameter' }],
    ['messages that are not an array', { model: 'm/x', messages: 'hi' }, { param: 'messages', code: 'invalid_type' }],
    ['an empty messages array', { model: 'm/x', messages: [] }, { param: 'messages', code: 'empty_array' }],
    ['an unknown role', { model: 'm/x', messages: [{ role: 'robot', content: 'x' }] }, { param: 'messages.[0].role', code: 'invalid_value' }],
    ['an empty tools array', { model: 'm/x', messages: [user], tools: [] }, { param: 'tools', code: 'empty_array' }],
    [
      'more than 128 tools',
      { model: 'm/x', messages: [user], tools: Array.from({ length: 129 }, (_, i) => tool(`t${i}`)) },
      { param: 'tools', code: 'array_above_max_length', message: /maximum length 128/ },
    ],
    ['a tool name with a space', { model: 'm/x', messages: [user], tools: [tool('get weather')] }, { param: 'tools[0].function.name', code: 'invalid_value' }],
    ['a tool name longer than 64 characters', { model: 'm/x', messages: [user], tools: [tool('a'.repeat(65))] }, { param: 'tools[0].function.name', code: 'invalid_value' }],
    ['an empty tool name', { model: 'm/x', messages: [user], tools: [tool('')] }, { param: 'tools[0].function.name', code: 'invalid_value' }],
    ['duplicated tool names', { model: 'm/x', messages: [user], tools: [tool('a'), tool('b'), tool('a')] }, { param: 'tools', code: 'duplicate_value', message: /'a'/ }],
    ['a tool without its function object', { model: 'm/x', messages: [user], tools: [{ type: 'function' }] }, { param: 'tools[0].function', code: 'missing_required_parameter' }],
    [
      'parameters that are not an object schema',
      { model: 'm/x', messages: [user], tools: [tool('a', { parameters: { type: 'string' } })] },
      { param: 'tools[0].function.parameters', code: 'invalid_function_parameters' },
    ],
    [
      'parameters that are an array',
      { model: 'm/x', messages: [user], tools: [tool('a', { parameters: [] })] },
      { param: 'tools[0].function.parameters', code: 'invalid_function_parameters' },
    ],
    [
      'a custom tool, by name',
      { model: 'm/x', messages: [user], tools: [{ type: 'custom', custom: { name: 'grammar' } }] },
      { param: 'tools[0].type', code: 'unsupported_value', message: /Custom tools/ },
    ],
    ['a tool of an unknown type', { model: 'm/x', messages: [user], tools: [{ type: 'web_search' }] }, { param: 'tools[0].type', code: 'invalid_value' }],
    ['an unknown tool_choice string', { model: 'm/x', messages: [user], tools: [tool('a')], tool_choice: 'any' }, { param: 'tool_choice', code: 'invalid_value' }],
    [
      'a named tool_choice that is not in tools',
      { model: 'm/x', messages: [user], tools: [tool('a')], tool_choice: { type: 'function', function: { name: 'b' } } },
      { param: 'tool_choice.function.name', code: 'invalid_value', message: /'b'.*offered: a/ },
    ],
    [
      'a named tool_choice without a name',
      { model: 'm/x', messages: [user], tools: [tool('a')], tool_choice: { type: 'function' } },
      { param: 'tool_choice.function.name', code: 'missing_required_parameter' },
    ],
    ['a tool_choice without tools', { model: 'm/x', messages: [user], tool_choice: 'auto' }, { param: 'tool_choice', code: 'invalid_value' }],
    [
      'a custom tool_choice',
      { model: 'm/x', messages: [user], tools: [tool('a')], tool_choice: { type: 'custom', custom: { name: 'a' } } },
      { param: 'tool_choice.type', code: 'unsupported_value' },
    ],
    [
      'allowed_tools naming a tool not in tools',
      { model: 'm/x', messages: [user], tools: [tool('a')], tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'z' } }] } } },
      { param: 'tool_choice.allowed_tools.tools[0].function.name', code: 'invalid_value' },
    ],
    [
      'allowed_tools with an unknown mode',
      { model: 'm/x', messages: [user], tools: [tool('a')], tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'none', tools: [{ type: 'function', function: { name: 'a' } }] } } },
      { param: 'tool_choice.allowed_tools.mode', code: 'invalid_value' },
    ],
    [
      'a tool message that answers no earlier call',
      { model: 'm/x', messages: [user, { role: 'tool', tool_call_id: 'call_1', content: '42' }] },
      { param: 'messages.[1].role', code: 'invalid_value', message: /must be a response to a preceding message with 'tool_calls'/ },
    ],
    [
      "an assistant's call left unanswered",
      {
        model: 'm/x',
        messages: [user, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'a', arguments: '{}' } }] }, user],
      },
      { param: 'messages.[1].tool_calls', code: 'invalid_value', message: /did not have response messages: call_1/ },
    ],
    [
      'an unanswered call at the end of the history',
      {
        model: 'm/x',
        messages: [
          user,
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{}' } },
              { id: 'call_2', type: 'function', function: { name: 'a', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
        ],
      },
      { param: 'messages.[1].tool_calls', code: 'invalid_value', message: /call_2/ },
    ],
    [
      'replayed arguments that are not JSON',
      { model: 'm/x', messages: [user, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'a', arguments: '{oops' } }] }, { role: 'tool', tool_call_id: 'c', content: '' }] },
      { param: 'messages.[1].tool_calls[0].function.arguments', code: 'invalid_value' },
    ],
    ["the legacy 'functions' parameter, by name", { model: 'm/x', messages: [user], functions: [{ name: 'a' }] }, { param: 'functions', code: 'unsupported_value' }],
    ["'n' above 1", { model: 'm/x', messages: [user], n: 2 }, { param: 'n', code: 'unsupported_value' }],
    ['audio output', { model: 'm/x', messages: [user], modalities: ['text', 'audio'] }, { param: 'modalities', code: 'unsupported_value' }],
    ['logprobs', { model: 'm/x', messages: [user], logprobs: true }, { param: 'logprobs', code: 'unsupported_value' }],
    ['web search, by name', { model: 'm/x', messages: [user], web_search_options: {} }, { param: 'web_search_options', code: 'unsupported_value' }],
    ['stream_options without stream', { model: 'm/x', messages: [user], stream_options: { include_usage: true } }, { param: 'stream_options', code: 'invalid_value' }],
    ['a non-boolean stream', { model: 'm/x', messages: [user], stream: 'yes' }, { param: 'stream', code: 'invalid_type' }],
    ['a temperature above 2', { model: 'm/x', messages: [user], temperature: 3 }, { param: 'temperature', code: 'invalid_type' }],
    ['a fractional max_tokens', { model: 'm/x', messages: [user], max_tokens: 1.5 }, { param: 'max_tokens', code: 'invalid_type' }],
    ['a non-boolean parallel_tool_calls', { model: 'm/x', messages: [user], tools: [tool('a')], parallel_tool_calls: 'no' }, { param: 'parallel_tool_calls', code: 'invalid_type' }],
    ['an input_audio user part, by name', { model: 'm/x', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, { param: 'messages.[0].content[0].type', code: 'unsupported_value' }],
    ["the legacy 'function' role", { model: 'm/x', messages: [{ role: 'function', name: 'a', content: '1' }] }, { param: 'messages.[0].role', code: 'unsupported_value' }],
    ['an unknown response_format', { model: 'm/x', messages: [user], response_format: { type: 'xml' } }, { param: 'response_format.type', code: 'invalid_value' }],
  ];
  for (const [name, body, expected] of cases) {
    it(name, () => {
      const error = refusal(body);
      expect(error.status).toBe(400);
      expect(error.type).toBe('invalid_request_error');
      expect(error.param).toBe(expected.param);
      expect(error.code).toBe(expected.code);
      if (expected.message) expect(error.message).toMatch(expected.message);
    });
  }
});

describe('parseChatRequest accepts', () => {
  it('maps a plain request to core messages', () => {
    const parsed = parseChatRequest({
      model: 'openai/gpt-4o',
      messages: [{ role: 'developer', content: 'be brief' }, { role: 'system', content: [{ type: 'text', text: 'sys' }] }, user],
      temperature: 0.2,
      max_completion_tokens: 50,
      stop: 'END',
    });
    expect(parsed).toMatchObject({
      model: 'openai/gpt-4o',
      stream: false,
      includeUsage: false,
      tools: [],
      temperature: 0.2,
      maxOutputTokens: 50,
      stop: ['END'],
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(parsed.toolChoice).toBeUndefined();
  });

  it('treats tool_choice null as absent, even without tools', () => {
    expect(parseChatRequest({ model: 'm/x', messages: [user], tool_choice: null }).toolChoice).toBeUndefined();
  });

  it('maps tool choices to core', () => {
    const base = { model: 'm/x', messages: [user], tools: [tool('a'), tool('b')] };
    expect(parseChatRequest({ ...base, tool_choice: 'required' }).toolChoice).toBe('required');
    expect(parseChatRequest({ ...base, tool_choice: 'none' }).toolChoice).toBe('none');
    expect(parseChatRequest({ ...base, tool_choice: { type: 'function', function: { name: 'b' } } }).toolChoice).toEqual({ type: 'tool', name: 'b' });
  });

  it('narrows tools to allowed_tools and keeps its mode', () => {
    const parsed = parseChatRequest({
      model: 'm/x',
      messages: [user],
      tools: [tool('a'), tool('b')],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'b' } }] } },
    });
    expect(parsed.toolChoice).toBe('required');
    expect(parsed.tools.map((t) => t.spec.name)).toEqual(['b']);
  });

  it('reads a tool without parameters as taking none', () => {
    const parsed = parseChatRequest({ model: 'm/x', messages: [user], tools: [{ type: 'function', function: { name: 'now', description: 'time' } }] });
    expect(parsed.tools).toEqual([
      { spec: { type: 'function', name: 'now', description: 'time', inputSchema: { type: 'object', properties: {} } }, index: 0, definition: 'without-parameters' },
    ]);
  });

  it('tells a name-only function, one without parameters and one with its own parameters apart', () => {
    const parsed = parseChatRequest({
      model: 'm/x',
      messages: [user],
      tools: [
        { type: 'function', function: { name: 'calculate' } },
        { type: 'function', function: { name: 'get_current_time', parameters: null, description: null } },
        { type: 'function', function: { name: 'now', strict: true } },
        { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: true } },
      ],
    });
    expect(parsed.tools.map((t) => [t.spec.name, t.index, t.definition])).toEqual([
      ['calculate', 0, 'name-only'],
      ['get_current_time', 1, 'name-only'],
      ['now', 2, 'without-parameters'],
      ['lookup', 3, 'with-parameters'],
    ]);
    expect(parsed.tools[3]?.spec).toEqual({ type: 'function', name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, strict: true });
  });

  it('tolerates unknown null fields on replayed assistant messages and reads "" arguments as {}', () => {
    const parsed = parseChatRequest({
      model: 'm/x',
      messages: [
        user,
        {
          role: 'assistant',
          content: null,
          refusal: null,
          audio: null,
          annotations: null,
          parsed: null,
          function_call: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'now', arguments: '' } },
            { id: 'call_b', type: 'function', function: { name: 'add', arguments: '{"x":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '12:00' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '2' }] },
      ],
    });
    expect(parsed.messages[1]).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_a', name: 'now', arguments: {} },
        { id: 'call_b', name: 'add', arguments: { x: 1 } },
      ],
    });
    expect(parsed.messages[2]).toEqual({ role: 'tool', toolCallId: 'call_a', toolName: 'now', content: '12:00' });
    expect(parsed.messages[3]).toEqual({ role: 'tool', toolCallId: 'call_b', toolName: 'add', content: '2' });
  });

  it('reads stream options and response formats', () => {
    const parsed = parseChatRequest({
      model: 'm/x',
      messages: [user],
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' } } },
    });
    expect(parsed.stream).toBe(true);
    expect(parsed.includeUsage).toBe(true);
    expect(parsed.responseFormat).toEqual({ type: 'json', name: 'out', schema: { type: 'object' } });
  });

  it('maps image parts of user messages', () => {
    const parsed = parseChatRequest({
      model: 'm/x',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
    });
    expect(parsed.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this' },
        { type: 'image', image: 'https://x/y.png' },
      ],
    });
  });
});

describe('tool names (core\'s one rule)', () => {
  const withTool = (name: string) => ({
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }],
  });
  it('accepts letters, digits, underscores and dashes up to 64 characters', () => {
    for (const name of ['get_weather-2', 'weather-now', 'a'.repeat(64)]) {
      expect(parseChatRequest(withTool(name)).tools?.[0]?.spec.name).toBe(name);
    }
  });
  it('refuses dots, other scripts and names over 64 characters, saying the rule', () => {
    for (const name of ['a.b', 'é', 'a'.repeat(65)]) {
      expect(() => parseChatRequest(withTool(name))).toThrow(/\^\[a-zA-Z0-9_-\]\{1,64\}\$/);
    }
  });
});
