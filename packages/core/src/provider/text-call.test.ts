import { describe, expect, it } from 'vitest';
import { mayBeTextCall, readTextCall, textCallOpening } from './text-call.ts';

const offered = [{ name: 'get_weather' }];

describe('mayBeTextCall', () => {
  it('holds text that may still be a call, and lets go of anything else at once', () => {
    for (const text of ['', '  ', '{', '  {"na', '<', '<tool_', '<tool_call>', '<tool_call>\n{"name"']) expect(mayBeTextCall(text)).toBe(true);
    for (const text of ['Hello', '  The', '<b>', '<tool_calls>', '[{"name"', '```json']) expect(mayBeTextCall(text)).toBe(false);
  });

  it('lets go of a JSON answer once its first key is not one a call opens with', () => {
    for (const text of ['{"name": "get_weather", "argu', '{ "arguments": {', '{\n  "parameters"', '{"par', '<tool_call>{"name"']) expect(mayBeTextCall(text)).toBe(true);
    for (const text of ['{"answer": 4', '{"answer"', '{"the_weather_in_paris', '{1', '{}', '<tool_call>{"answer"', `{"${'x'.repeat(100_000)}`]) expect(mayBeTextCall(text)).toBe(false);
  });
});

describe('readTextCall', () => {
  it('reads one call to an offered tool, bare or tagged, arguments as an object or a JSON string', () => {
    for (const text of [
      '{"name": "get_weather", "arguments": {"city": "Paris"}}',
      ' <tool_call>\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}\n</tool_call> ',
      '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    ]) {
      const call = readTextCall(text, offered);
      expect(call).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
      expect(call?.id).toMatch(/^call_/);
    }
  });

  it('leaves everything else text: other tools, prose around the call, arrays, broken JSON, no tools offered', () => {
    for (const text of [
      '{"name": "rm_rf", "arguments": {}}',
      'Sure: {"name": "get_weather", "arguments": {"city": "Paris"}}',
      '[{"name": "get_weather", "arguments": {}}]',
      '{"name": "get_weather", "arguments": {"city": "Par',
      '{"name": "get_weather", "arguments": [1]}',
      '{"answer": 42}',
    ]) {
      expect(readTextCall(text, offered)).toBeUndefined();
    }
    expect(readTextCall('{"name": "get_weather", "arguments": {}}', [])).toBeUndefined();
  });
});

describe('textCallOpening', () => {
  it('tells a call, text, and what is not decided yet', () => {
    expect(textCallOpening('{"name": "lookup", "arguments": {"q": "')).toBe('call');
    expect(textCallOpening('<tool_call>\n{"arguments"')).toBe('call');
    expect(textCallOpening('{"answer": 42')).toBe('text');
    expect(textCallOpening('Hello')).toBe('text');
    expect(textCallOpening('  \n')).toBe('undecided');
    expect(textCallOpening('<tool_')).toBe('undecided');
    expect(textCallOpening('{"na')).toBe('undecided');
  });

  it('counts text still undecided past 4 KiB as text, and reads no further', () => {
    expect(textCallOpening(' '.repeat(4096))).toBe('undecided');
    expect(textCallOpening(' '.repeat(4097))).toBe('text');
    expect(textCallOpening(`${' '.repeat(4090)}{"name"`)).toBe('text');
    // A call's opening decides it however long the rest grows.
    expect(textCallOpening(`{"name": "f", "arguments": {"q": "${'x'.repeat(1 << 20)}`)).toBe('call');
  });

  it('agrees with mayBeTextCall', () => {
    for (const text of ['{"name": "f"', '{"answer"', '   ', 'Hi']) expect(mayBeTextCall(text)).toBe(textCallOpening(text) !== 'text');
  });
});
