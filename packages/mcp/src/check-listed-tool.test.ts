import { describe, expect, it } from 'vitest';
import { checkListedTool } from './check-listed-tool.ts';

describe('checkListedTool', () => {
  it('accepts a tool with an object input schema', () => {
    expect(checkListedTool({ name: 'read', inputSchema: { type: 'object' } })).toMatchObject({ ok: true, tool: { name: 'read' } });
  });

  it('says what is wrong with one tool, by its name', () => {
    expect(checkListedTool({ name: 'no_schema' })).toMatchObject({ ok: false, name: 'no_schema', problem: expect.stringContaining('not a valid MCP tool (inputSchema') as string });
    expect(checkListedTool({ name: 'str', inputSchema: { type: 'string' } })).toMatchObject({ ok: false, name: 'str' });
    expect(checkListedTool(7)).toMatchObject({ ok: false, name: '(no name)' });
  });
});
