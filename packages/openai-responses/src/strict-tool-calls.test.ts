import type { JsonSchema, ToolCall, ToolSpec } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createStrictCallRestorer, restoreEventCall } from './strict-tool-calls.ts';

const call: ToolCall = { id: 'c1', name: 'get_weather', arguments: { city: 'Paris', unit: null } };
const schema: JsonSchema = { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] };

describe('createStrictCallRestorer', () => {
  it('is one shared identity for every request without strict tools (nothing held per stream)', () => {
    const loose: ToolSpec[] = [{ type: 'function', name: 'get_weather', description: 'd', inputSchema: schema }];
    const none = createStrictCallRestorer(undefined);
    expect(createStrictCallRestorer([])).toBe(none);
    expect(createStrictCallRestorer(loose)).toBe(none);
    expect(none(call)).toBe(call);
  });

  it('drops the nulls a strict tool was forced to send', () => {
    const strict: ToolSpec[] = [{ type: 'function', name: 'get_weather', description: 'd', inputSchema: schema, strict: true }];
    const restore = createStrictCallRestorer(strict);
    expect(restore).not.toBe(createStrictCallRestorer(undefined));
    expect(restoreEventCall({ type: 'tool-call', toolCall: call }, restore)).toEqual({ type: 'tool-call', toolCall: { ...call, arguments: { city: 'Paris' } } });
  });
});
