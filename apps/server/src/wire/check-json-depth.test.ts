import { describe, expect, it } from 'vitest';
import { checkJsonDepth, checkJsonTextDepth, MAX_JSON_DEPTH } from './check-json-depth.ts';
import { GatewayError } from './gateway-error.ts';

/** An object nested `n` deep, built without recursion. */
function nested(n: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < n; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

function refusal(run: () => void): GatewayError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return GatewayError.isInstance(error) ? error : undefined;
  }
}

describe('checkJsonDepth', () => {
  it('accepts requests up to the limit', () => {
    expect(() => checkJsonDepth({ tools: [nested(MAX_JSON_DEPTH - 2)] })).not.toThrow();
  });

  it('refuses deeper objects and arrays with a 400 naming the top-level field', () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 200_000]) {
      const error = refusal(() => checkJsonDepth({ model: 'm', tools: [nested(depth)] }));
      expect(error?.status).toBe(400);
      expect(error?.type).toBe('invalid_request_error');
      expect(error?.code).toBe('nesting_too_deep');
      expect(error?.param).toBe('tools');
    }
  });

  it('refuses replayed arguments whose JSON text nests too deep', () => {
    for (const text of ['{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), '['.repeat(10_000) + ']'.repeat(10_000), '['.repeat(100)]) {
      const body = { messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: text } }] }] };
      const error = refusal(() => checkJsonDepth(body));
      expect(error?.code).toBe('nesting_too_deep');
      expect(error?.param).toBe('messages');
    }
  });

  it('leaves other strings alone, however many brackets they hold', () => {
    expect(() => checkJsonDepth({ messages: [{ role: 'user', content: '['.repeat(10_000) }] })).not.toThrow();
  });
});

describe('checkJsonTextDepth', () => {
  it('refuses a raw body of nested brackets before anything parses it', () => {
    expect(refusal(() => checkJsonTextDepth('['.repeat(2_000_000) + ']'.repeat(2_000_000)))?.code).toBe('nesting_too_deep');
    expect(() => checkJsonTextDepth(JSON.stringify({ a: [[[{ b: 1 }]]] }))).not.toThrow();
  });
});
