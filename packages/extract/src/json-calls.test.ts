import { describe, expect, it } from 'vitest';
import { extractToolCalls } from './extract-tool-calls.ts';
import { createToolCallParser } from './tool-call-parser.ts';

function calls(text: string, tools?: readonly string[]): { name: string; arguments: Record<string, unknown> }[] {
  return extractToolCalls(text, tools === undefined ? undefined : { tools }).map((c) => ({ name: c.name, arguments: c.arguments }));
}

describe('JSON calls: argument keys and definitions', () => {
  it('reads params, args and input as argument keys', () => {
    expect(calls('{"name": "f", "params": {"a": 1}}')).toEqual([{ name: 'f', arguments: { a: 1 } }]);
    expect(calls('{"name": "g", "args": {"b": "x"}}')).toEqual([{ name: 'g', arguments: { b: 'x' } }]);
    expect(calls('{"name": "h", "input": {"c": [1]}}')).toEqual([{ name: 'h', arguments: { c: [1] } }]);
  });

  it('does not read an echoed tool definition as a call, even with an allow-list', () => {
    const definition = '{"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}';
    expect(calls(definition)).toEqual([]);
    expect(calls(definition, ['get_weather'])).toEqual([]);
    expect(calls(`{"type": "function", "function": ${definition}}`, ['get_weather'])).toEqual([]);
    expect(calls('[{"name": "get_time", "parameters": {"type": "object", "properties": {}}}]')).toEqual([]);
  });

  it('still reads Llama-style calls whose parameters are plain arguments', () => {
    expect(calls('{"name": "f", "parameters": {"type": "fast", "city": "Paris"}}')).toEqual([
      { name: 'f', arguments: { type: 'fast', city: 'Paris' } },
    ]);
  });

  it("reads Cohere's Action: block (tool_name / parameters) and skips directly-answer", () => {
    const text = 'Action: ```json\n[{"tool_name": "set_alarm", "parameters": {"time": "07:00"}}, {"tool_name": "directly-answer", "parameters": {}}]\n```';
    expect(calls(text)).toEqual([{ name: 'set_alarm', arguments: { time: '07:00' } }]);
  });

  it('reads name-as-key JSON when the name is on the allow-list only', () => {
    expect(calls('[{"set_alarm": {"time": "07:00"}}]', ['set_alarm'])).toEqual([{ name: 'set_alarm', arguments: { time: '07:00' } }]);
    expect(calls('[{"set_alarm": {"time": "07:00"}}]')).toEqual([]);
    expect(calls('{"city": {"name": "Paris"}}', ['set_alarm'])).toEqual([]);
  });
});

describe('JSON calls: ids the model wrote', () => {
  function ids(text: string, id?: (name: string, index: number) => string): string[] {
    const options = id === undefined ? undefined : { id };
    const batch = extractToolCalls(text, options).map((c) => c.id);
    const parser = createToolCallParser(options);
    const streamed = [...Array.from(text).flatMap((c) => parser.push(c)), ...parser.end()].flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.id] : []));
    expect(streamed).toEqual(batch);
    return batch;
  }

  it("keeps Cohere's tool_call_id and the id of Mistral's list", () => {
    const cohere = '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "foo", "parameters": {"q": "a"}}, {"tool_call_id": "1", "tool_name": "bar", "parameters": {}}]<|END_ACTION|>';
    expect(ids(cohere)).toEqual(['0', '1']);
    expect(ids('[TOOL_CALLS][{"name": "add", "arguments": {"a": 1}, "id": "a1B2c3D4e"}]')).toEqual(['a1B2c3D4e']);
  });

  it('makes an id where the model gave none, an empty one or one that is not a string', () => {
    expect(ids('{"name": "f", "arguments": {}}')).toEqual(['f_0']);
    expect(ids('[{"name": "f", "arguments": {"a": 1}, "id": ""}, {"name": "g", "arguments": {}, "id": 7}]')).toEqual(['f_0', 'g_1']);
  });

  it('takes the id when tool_call_id is empty or not a string', () => {
    expect(ids('{"name": "f", "arguments": {}, "tool_call_id": "", "id": "z"}')).toEqual(['z']);
    expect(ids('{"name": "f", "arguments": {}, "tool_call_id": 5, "id": "z"}')).toEqual(['z']);
  });

  it('makes an id for a model id that is unsafe: too long, or with other characters', () => {
    const long = 'A'.repeat(65);
    expect(ids(`{"name": "f", "arguments": {}, "id": "${'A'.repeat(64)}"}`)).toEqual(['A'.repeat(64)]);
    expect(ids(`{"name": "f", "arguments": {}, "id": "${long}"}`)).toEqual(['f_0']);
    expect(ids('{"name": "f", "arguments": {}, "id": "a\\nb\\u0000c\\u001b[31m"}')).toEqual(['f_0']);
    expect(ids('{"name": "f", "arguments": {}, "id": "call 1"}')).toEqual(['f_0']);
    expect(ids('{"name": "f", "arguments": {}, "id": "__proto__"}')).toEqual(['f_0']);
    expect(ids('{"name": "f", "arguments": {}, "id": "functions.f:0"}')).toEqual(['functions.f:0']);
  });

  it('never gives two calls of one text the same id', () => {
    // A repeated model id: the second call gets a made id.
    expect(ids('[{"name": "f", "arguments": {"a": 1}, "id": "x"}, {"name": "f", "arguments": {"a": 2}, "id": "x"}]')).toEqual(['x', 'f_1']);
    // A model id equal to an earlier made one.
    expect(ids('[{"name": "f", "arguments": {"a": 1}}, {"name": "f", "arguments": {"a": 2}, "id": "f_0"}]')).toEqual(['f_0', 'f_1']);
    // A made id that an earlier model id took gets a suffix.
    expect(ids('[{"name": "f", "arguments": {"a": 1}, "id": "f_1"}, {"name": "f", "arguments": {"a": 2}}]')).toEqual(['f_1', 'f_1_2']);
    expect(ids('[{"name": "f", "arguments": {"a": 1}, "id": "f_1"}, {"name": "f", "arguments": {"a": 2}, "id": "f_1_2"}, {"name": "f", "arguments": {"a": 3}}]')).toEqual([
      'f_1',
      'f_1_2',
      'f_2',
    ]);
    // With the caller's id function too (withTextToolCalling's generated ids).
    const made = (_name: string, index: number): string => `call_${String(index)}`;
    expect(ids('[{"name": "f", "arguments": {"a": 1}, "id": "call_1"}, {"name": "f", "arguments": {"a": 2}}]', made)).toEqual(['call_1', 'call_1_2']);
  });

  it('applies the same checks to Kimi and Mistral [CALL_ID] ids', () => {
    const kimi = (id: string, args: string): string => `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;
    const twice = `<|tool_calls_section_begin|>${kimi('functions.f:0', '{"a": 1}')}${kimi('functions.f:0', '{"a": 2}')}<|tool_calls_section_end|>`;
    expect(ids(twice)).toEqual(['functions.f:0', 'f_1']);
    const mistral = '[TOOL_CALLS]f[CALL_ID]abc[ARGS]{"a": 1}[TOOL_CALLS]f[CALL_ID]abc[ARGS]{"a": 2}';
    expect(ids(mistral)).toEqual(['abc', 'f_1']);
  });
});

describe('call syntax: parentheses', () => {
  it("reads x=('a') as the value, not a one-item list", () => {
    expect(calls("f(x=('a'), y=('b',))")).toEqual([{ name: 'f', arguments: { x: 'a', y: ['b'] } }]);
  });
});
