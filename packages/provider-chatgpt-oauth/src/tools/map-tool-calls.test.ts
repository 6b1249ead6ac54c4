import { describe, expect, it } from 'vitest';

import { toToolCall, toWireCall } from './map-tool-calls.ts';
import type { ToolMapping } from './wire-tool.ts';

const codex = (options: { shell?: string; plan?: string; cli?: string[] } = {}): ToolMapping => {
  const toUser = new Map<string, string>();
  const toWire = new Map<string, string>();
  if (options.shell) {
    toUser.set('shell', options.shell);
    toWire.set(options.shell, 'shell');
  }
  if (options.plan) {
    toUser.set('update_plan', options.plan);
    toWire.set(options.plan, 'update_plan');
  }
  return { mode: 'codex', toUser, toWire, cliTools: new Set(options.cli ?? []) };
};
const shellCall = (command: unknown, extra: Record<string, unknown> = {}) => ({
  callId: 'call_1',
  name: 'shell',
  arguments: JSON.stringify({ command, ...extra }),
});

describe('toToolCall in codex mode', () => {
  it("returns a shell call under the caller's tool name with Codex's arguments", () => {
    expect(toToolCall(codex({ shell: 'bash' }), shellCall(['ls', '-la'], { workdir: '/tmp', timeout: 5000 }))).toEqual({
      id: 'call_1',
      name: 'bash',
      arguments: { command: ['ls', '-la'], workdir: '/tmp', timeout_ms: 5000 },
    });
  });

  it('returns update_plan under the caller tool name', () => {
    const call = { callId: 'call_2', name: 'update_plan', arguments: '{"plan":[{"step":"a","status":"pending"}]}' };
    expect(toToolCall(codex({ plan: 'TodoWrite' }), call)).toEqual({ id: 'call_2', name: 'TodoWrite', arguments: { plan: [{ step: 'a', status: 'pending' }] } });
  });

  it('dispatches an exact ["toolwire-tool", name, json] argv to that tool with the parsed arguments', () => {
    const call = shellCall(['toolwire-tool', 'get_weather', '{"city":"Paris","days":2}']);
    expect(toToolCall(codex({ shell: 'bash', cli: ['get_weather'] }), call)).toEqual({ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris', days: 2 } });
  });

  it('does not shell-parse: a toolwire-tool command inside bash -lc goes to the shell tool', () => {
    const call = shellCall(['bash', '-lc', "toolwire-tool get_weather '{\"city\":\"Paris\"}'"]);
    const result = toToolCall(codex({ shell: 'bash', cli: ['get_weather'] }), call);
    expect(result.name).toBe('bash');
    expect(result.arguments.command).toEqual(['bash', '-lc', "toolwire-tool get_weather '{\"city\":\"Paris\"}'"]);
  });

  it('does not dispatch argv with extra elements', () => {
    const call = shellCall(['toolwire-tool', 'get_weather', '{}', '--now']);
    expect(toToolCall(codex({ shell: 'bash', cli: ['get_weather'] }), call).name).toBe('bash');
  });

  it('answers a non-command shell call with an invalid call that explains the form, when there is no shell tool', () => {
    const result = toToolCall(codex({ cli: ['get_weather'] }), shellCall(['bash', '-lc', 'toolwire-tool get_weather {}']));
    expect(result.name).toBe('shell');
    expect(result.invalid?.message).toContain('["toolwire-tool", "<tool name>", "<JSON arguments>"]');
    expect(result.invalid?.message).toContain('get_weather');
  });

  it('marks a toolwire-tool call whose JSON is broken as invalid, under the tool name', () => {
    const result = toToolCall(codex({ cli: ['get_weather'] }), shellCall(['toolwire-tool', 'get_weather', '{city: Paris']));
    expect(result).toMatchObject({ id: 'call_1', name: 'get_weather', arguments: {}, invalid: { rawArguments: '{city: Paris' } });
  });
});

describe('toToolCall in passthrough mode', () => {
  const passthrough: ToolMapping = { mode: 'passthrough', toUser: new Map([['shell', 'shell']]), toWire: new Map(), cliTools: new Set() };

  it('parses the arguments and keeps the name', () => {
    expect(toToolCall(passthrough, { callId: 'c', name: 'shell', arguments: '{"command":["ls"]}' })).toEqual({ id: 'c', name: 'shell', arguments: { command: ['ls'] } });
  });

  it("keeps unparseable arguments as an invalid call instead of throwing, by core's one rule", () => {
    expect(toToolCall(passthrough, { callId: 'c', name: 'f', arguments: 'q="x"' })).toEqual({ id: 'c', name: 'f', arguments: { q: 'x' } });
    expect(toToolCall(passthrough, { callId: 'c', name: 'f', arguments: '{' }).invalid?.rawArguments).toBe('{');
  });
});

describe('toWireCall', () => {
  it('prefers the wire call recorded on the response', () => {
    const recorded = { callId: 'call_1', name: 'shell', arguments: '{"command":["toolwire-tool","x","{}"]}' };
    expect(toWireCall(codex(), { id: 'call_1', name: 'x', arguments: {} }, recorded)).toEqual(recorded);
  });

  it('rebuilds mapped and CLI-tool calls from the mapping when nothing was recorded', () => {
    const mapping = codex({ shell: 'bash', cli: ['get_weather'] });
    expect(toWireCall(mapping, { id: 'a', name: 'bash', arguments: { command: ['ls'] } }, undefined)).toEqual({ callId: 'a', name: 'shell', arguments: '{"command":["ls"]}' });
    expect(toWireCall(mapping, { id: 'b', name: 'get_weather', arguments: { city: 'Oslo' } }, undefined)).toEqual({
      callId: 'b',
      name: 'shell',
      arguments: JSON.stringify({ command: ['toolwire-tool', 'get_weather', '{"city":"Oslo"}'] }),
    });
  });
});
