import type { FunctionToolSpec } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { forcedCallFormat, parseForcedCall } from './forced-call.ts';

const search: FunctionToolSpec = {
  type: 'function',
  name: 'search',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};
const noArgs: FunctionToolSpec = { type: 'function', name: 'now', inputSchema: {} };

describe('forcedCallFormat', () => {
  it('limits the name to the allowed tool and the arguments to its schema', () => {
    expect(forcedCallFormat([search])).toEqual({
      type: 'object',
      properties: { name: { type: 'string', enum: ['search'] }, arguments: search.inputSchema },
      required: ['name', 'arguments'],
    });
  });

  it('offers one variant per tool, and makes an empty schema an object', () => {
    const format = forcedCallFormat([search, noArgs]);
    expect(format.anyOf).toHaveLength(2);
    expect(format.anyOf?.[1]?.properties?.['arguments']).toEqual({ type: 'object' });
  });
});

describe('parseForcedCall', () => {
  it('reads a call with object or JSON-string arguments', () => {
    expect(parseForcedCall('{"name":"search","arguments":{"q":"x"}}', [search])).toMatchObject({ name: 'search', arguments: { q: 'x' } });
    expect(parseForcedCall('{"name":"search","arguments":"{\\"q\\":\\"y\\"}"}', [search])).toMatchObject({ arguments: { q: 'y' } });
    expect(parseForcedCall('{"name":"now","parameters":{}}', [noArgs])).toMatchObject({ name: 'now', arguments: {} });
  });

  it('gives undefined for a name not allowed, a cut-off answer, or a non-object', () => {
    expect(parseForcedCall('{"name":"delete_all","arguments":{}}', [search])).toBeUndefined();
    expect(parseForcedCall('{"name":"sea', [search])).toBeUndefined();
    expect(parseForcedCall('[1,2]', [search])).toBeUndefined();
    expect(parseForcedCall('{"name":"search","arguments":[1]}', [search])).toBeUndefined();
  });
});
