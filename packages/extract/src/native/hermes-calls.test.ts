import { describe, expect, it } from 'vitest';
import { parseHermesCall } from './hermes-calls.ts';

describe('parseHermesCall', () => {
  const body = (json: string) => {
    const text = `<tool_call>\n${json}\n</tool_call>`;
    return parseHermesCall(text, '<tool_call>'.length, text.length - '</tool_call>'.length);
  };

  it('reads the name and the arguments, written as an object or as JSON text', () => {
    expect(body('{"name": "f", "arguments": {"a": 1, "s": "x \\u003c/tool_call> y"}}')).toEqual({ name: 'f', args: { a: 1, s: 'x </tool_call> y' } });
    expect(body('{"name": "f", "arguments": "{\\"a\\": 1}"}')).toEqual({ name: 'f', args: { a: 1 } });
  });

  it('drops arguments that are no object, and reads no body without a name and arguments', () => {
    expect(body('{"name": "f", "arguments": [1]}')).toEqual({ name: 'f', args: undefined });
    expect(body('{"name": "f", "arguments": "not json"}')).toEqual({ name: 'f', args: undefined });
    for (const json of ['{"name": "f"}', '{"name": 1, "arguments": {}}', '[{"name": "f", "arguments": {}}]', '{not json}', '']) expect(body(json), json).toBeUndefined();
  });
});
