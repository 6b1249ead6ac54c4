import { describe, expect, it } from 'vitest';
import { toToolCall } from './to-tool-call.ts';

describe('toToolCall', () => {
  it('parses JSON object arguments', () => {
    expect(toToolCall({ id: 'call_1', name: 'search', rawArguments: '{"q":"x","limit":10}' })).toEqual({
      id: 'call_1',
      name: 'search',
      arguments: { q: 'x', limit: 10 },
    });
  });

  it('reads empty arguments as an empty object', () => {
    expect(toToolCall({ id: 'c', name: 'now', rawArguments: '' }).arguments).toEqual({});
    expect(toToolCall({ id: 'c', name: 'now', rawArguments: '  ' }).arguments).toEqual({});
  });

  it('reads key=value arguments through parseArguments', () => {
    const call = toToolCall({ id: 'c', name: 'search', rawArguments: 'q="x", limit=10' });
    expect(call.invalid).toBeUndefined();
    expect(call.arguments).toEqual({ q: 'x', limit: 10 });
  });

  it('marks arguments that cannot be parsed as invalid instead of throwing', () => {
    const call = toToolCall({ id: 'c', name: 'search', rawArguments: '{"q": "unterminated' });
    expect(call.arguments).toEqual({});
    expect(call.invalid?.rawArguments).toBe('{"q": "unterminated');
    expect(call.invalid?.message).toContain('"search"');
    expect(call.invalid?.message).toContain('Call the tool again');
  });

  it('marks a call cut off by the token limit as invalid even when its text parses', () => {
    const call = toToolCall({ id: 'c', name: 'search', rawArguments: '{"q":"x"}', truncated: true });
    expect(call.arguments).toEqual({});
    expect(call.invalid?.message).toContain('output token limit');
  });
});

describe('toToolCall with decoded arguments', () => {
  it('uses an argument object as is (Ollama sends objects)', () => {
    expect(toToolCall({ id: 'c', name: 'f', rawArguments: { a: 1 } }).arguments).toEqual({ a: 1 });
  });

  it('reads null and undefined arguments as an empty object', () => {
    expect(toToolCall({ id: 'c', name: 'f', rawArguments: null }).arguments).toEqual({});
    expect(toToolCall({ id: 'c', name: 'f', rawArguments: undefined }).arguments).toEqual({});
  });

  it('gives the same answer for the same bad text whatever the provider', () => {
    const a = toToolCall({ id: 'c', name: 'f', rawArguments: '{"a": [1, 2' });
    const b = toToolCall({ id: 'c', name: 'f', rawArguments: '{"a": [1, 2' });
    expect(a).toEqual(b);
    expect(a.invalid).toBeDefined();
  });
});
