import { defineTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/api-key-store.ts';
import { createServerToolRegistry } from '../tools/server-tool-registry.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import { parseChatRequest } from '../wire/parse-chat-request.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';

const builtin = (name: string) => defineTool({ name, description: `the server's ${name}`, parameters: { type: 'object', properties: {} }, execute: () => name });
const serverTools = createServerToolRegistry({
  tools: ['calculate', 'get_current_time', 'fetch_url'].map(builtin),
  keys: [
    { id: 'open', keyHash: 'sha256:1' },
    { id: 'limited', keyHash: 'sha256:2', tools: ['get_current_time'] },
  ],
  maxConcurrent: 4,
});
const context = { serverTools };
const open: Principal = { id: 'open', alwaysTools: [] };

function prepare(body: Record<string, unknown>, principal: Principal = open) {
  return prepareChatRequest(context, principal, parseChatRequest({ model: 'm/x', messages: [{ role: 'user', content: 'hi' }], ...body }));
}

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

const own = (name: string) => ({
  type: 'function',
  function: {
    name,
    description: `my own ${name}`,
    parameters: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false },
    strict: true,
  },
});

describe('prepareChatRequest: whose tool is it', () => {
  for (const name of ['calculate', 'get_current_time', 'fetch_url']) {
    it(`keeps a client function named '${name}' with its own parameters the client's, exactly as written`, () => {
      const { request, clientTools } = prepare({ tools: [own(name)] });
      expect(request.tools).toEqual([
        { type: 'function', name, description: `my own ${name}`, inputSchema: own(name).function.parameters, strict: true },
      ]);
      expect([...clientTools]).toEqual([name]);
    });
  }

  it("offers the server's tool for a name-only entry, and keeps other name-only entries the client's", () => {
    const { request, clientTools } = prepare({ tools: [{ type: 'function', function: { name: 'calculate' } }, { type: 'function', function: { name: 'now' } }] });
    expect(request.tools?.[0]).toBe(serverTools.get('calculate'));
    expect(request.tools?.[1]).toEqual({ type: 'function', name: 'now', inputSchema: { type: 'object', properties: {} } });
    expect([...clientTools]).toEqual(['now']);
  });

  it('refuses a description without parameters that names a server tool, saying how to resolve it', () => {
    const error = refusal(() => prepare({ tools: [{ type: 'function', function: { name: 'calculate', description: 'mine' } }] }));
    expect(error).toMatchObject({ status: 400, code: 'ambiguous_tool', param: 'tools[0].function' });
    expect(error.message).toMatch(/'calculate'/);
    expect(error.message).toMatch(/name alone/);
    expect(error.message).toMatch(/give your function 'parameters'/);
  });

  it("adds the key's alwaysTools, unless tool_choice is none", () => {
    const principal: Principal = { id: 'open', alwaysTools: ['get_current_time'] };
    expect(prepare({ tools: [own('lookup')] }, principal).request.tools?.map((t) => t.name)).toEqual(['lookup', 'get_current_time']);
    expect(prepare({}, principal).request.tools?.map((t) => t.name)).toEqual(['get_current_time']);
    expect(prepare({ tools: [own('lookup')], tool_choice: 'none' }, principal).request.tools?.map((t) => t.name)).toEqual(['lookup']);
    // Asked for by name as well: offered once.
    expect(prepare({ tools: [{ type: 'function', function: { name: 'get_current_time' } }] }, principal).request.tools).toHaveLength(1);
  });

  it('refuses a client function that shares its name with an alwaysTools entry, naming the tool and the ways out', () => {
    const principal: Principal = { id: 'open', alwaysTools: ['calculate'] };
    const error = refusal(() => prepare({ tools: [own('lookup'), own('calculate')] }, principal));
    expect(error).toMatchObject({ status: 400, code: 'tool_conflict', param: 'tools[1].function' });
    expect(error.message).toMatch(/'calculate'/);
    expect(error.message).toMatch(/Rename your function/);
    expect(error.message).toMatch(/alwaysTools/);
  });

  it('answers 403 for a server tool the key may not use, and never adds one through alwaysTools', () => {
    const limited: Principal = { id: 'limited', alwaysTools: ['calculate'] };
    const error = refusal(() => prepare({ tools: [{ type: 'function', function: { name: 'calculate' } }] }, limited));
    expect(error).toMatchObject({ status: 403, code: 'tool_not_allowed', param: 'tools[0]' });
    expect(error.message).toMatch(/Allowed: get_current_time/);
    expect(prepare({ tools: [own('calculate')] }, limited).request.tools?.map((t) => t.name)).toEqual(['calculate']);
    expect(prepare({}, limited).request.tools).toBeUndefined();
  });
});
