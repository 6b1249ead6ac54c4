import { InvalidToolDefinitionError, ProviderToolMismatchError } from '@toolwire/core';
import type { FunctionToolSpec } from '@toolwire/core';
import { describe, expect, it } from 'vitest';

import { prepareTools } from './chatgpt-chat-prepare-tools.ts';

const tool = (name: string, inputSchema: FunctionToolSpec['inputSchema'] = { type: 'object', properties: { q: { type: 'string' } } }): FunctionToolSpec => ({
  type: 'function',
  name,
  description: `${name} tool`,
  inputSchema,
});

describe('prepareTools in passthrough mode', () => {
  it('sends every function tool with a schema the backend accepts', () => {
    const prepared = prepareTools({
      tools: [tool('get_weather', { properties: { city: {}, tags: { type: 'array' }, nested: { type: 'object' } } }), tool('noop', {})],
      toolChoice: undefined,
      mode: 'passthrough',
      cliTools: false,
    });
    expect(prepared.tools).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'get_weather tool',
        strict: false,
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, nested: { type: 'object', properties: {} } },
        },
      },
      { type: 'function', name: 'noop', description: 'noop tool', strict: false, parameters: { type: 'object', properties: {} } },
    ]);
    expect(prepared.toolChoice).toBe('auto');
    expect(prepared.warnings).toEqual([]);
  });

  it('maps a named tool choice to a function choice', () => {
    const prepared = prepareTools({ tools: [tool('a')], toolChoice: { type: 'tool', name: 'a' }, mode: 'passthrough', cliTools: false });
    expect(prepared.toolChoice).toEqual({ type: 'function', name: 'a' });
  });

  it('rejects a tool name the backend would refuse, before any request', () => {
    expect(() => prepareTools({ tools: [tool('has space')], toolChoice: undefined, mode: 'passthrough', cliTools: false })).toThrow(InvalidToolDefinitionError);
  });

  it('rejects a provider tool bound to another provider', () => {
    const providerTool = { type: 'provider' as const, provider: 'openai', id: 'openai.code_interpreter', name: 'code_interpreter', config: {} };
    expect(() => prepareTools({ tools: [providerTool], toolChoice: undefined, mode: 'passthrough', cliTools: false })).toThrow(ProviderToolMismatchError);
  });
});

describe('prepareTools in codex mode', () => {
  it.each([
    ['bash', 'shell'],
    ['shell', 'shell'],
    ['command', 'shell'],
    ['execute', 'shell'],
    ['TodoWrite', 'update_plan'],
    ['update_plan', 'update_plan'],
    ['plan', 'update_plan'],
    ['todo', 'update_plan'],
  ])('maps %s onto Codex %s with its exact schema', (name, wireName) => {
    const prepared = prepareTools({ tools: [tool(name)], toolChoice: undefined, mode: 'codex', cliTools: false });
    expect(prepared.tools.map((t) => t.name)).toEqual([wireName]);
    expect(prepared.mapping.toUser.get(wireName)).toBe(name);
    expect(prepared.warnings).toEqual([]);
  });

  it('sends the Codex shell and update_plan schemas', () => {
    const prepared = prepareTools({ tools: [tool('bash'), tool('TodoWrite')], toolChoice: undefined, mode: 'codex', cliTools: false });
    const [shell, plan] = prepared.tools as { parameters: any }[];
    expect(shell!.parameters.properties.command).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(Object.keys(shell!.parameters.properties)).toEqual(['command', 'workdir', 'timeout_ms']);
    expect(shell!.parameters.required).toEqual(['command']);
    expect(plan!.parameters.required).toEqual(['plan']);
    expect(plan!.parameters.properties.plan.items.properties.status.enum).toEqual(['pending', 'in_progress', 'completed']);
    expect(Object.keys(plan!.parameters.properties.plan.items.properties)).toEqual(['step', 'status']);
  });

  it('does not map names that merely contain a mapped word', () => {
    const prepared = prepareTools({ tools: [tool('execute_sql'), tool('planner')], toolChoice: undefined, mode: 'codex', cliTools: false });
    expect(prepared.tools).toEqual([]);
    expect(prepared.leftOut).toEqual(['execute_sql', 'planner']);
  });

  it('leaves out every other tool with an unsupported-tool warning, not an error', () => {
    const prepared = prepareTools({ tools: [tool('bash'), tool('get_weather'), tool('shell')], toolChoice: undefined, mode: 'codex', cliTools: false });
    expect(prepared.tools.map((t) => t.name)).toEqual(['shell']);
    expect(prepared.leftOut).toEqual(['get_weather', 'shell']);
    expect(prepared.warnings).toHaveLength(2);
    expect(prepared.warnings[0]).toMatchObject({ type: 'unsupported-tool', toolName: 'get_weather' });
    expect(prepared.warnings[0]!.message).toContain('passthrough');
    expect(prepared.warnings[1]!.message).toContain('already taken by tool "bash"');
  });

  it('offers the other tools as toolwire-tool commands through shell when cliTools is on', () => {
    const prepared = prepareTools({ tools: [tool('get_weather')], toolChoice: { type: 'tool', name: 'get_weather' }, mode: 'codex', cliTools: true });
    expect(prepared.tools.map((t) => t.name)).toEqual(['shell']);
    expect(prepared.warnings).toEqual([]);
    expect([...prepared.mapping.cliTools]).toEqual(['get_weather']);
    expect(prepared.cliToolsPrompt).toContain('["toolwire-tool", "<tool name>", "<arguments as one JSON object>"]');
    expect(prepared.cliToolsPrompt).toContain('## get_weather');
    expect(prepared.toolChoice).toEqual({ type: 'function', name: 'shell' });
  });

  it('turns a tool choice for a left-out tool into auto with a warning', () => {
    const prepared = prepareTools({ tools: [tool('bash'), tool('x')], toolChoice: { type: 'tool', name: 'x' }, mode: 'codex', cliTools: false });
    expect(prepared.toolChoice).toBe('auto');
    expect(prepared.warnings.map((w) => w.type)).toEqual(['unsupported-tool', 'unsupported-setting']);
  });
});
