import { defineTool } from '@toolwire/core';
import type { ChatModel, ToolMessage } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import type { ScriptedModel, ScriptedStep } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamicToolsStartError, hashApiKey } from '../src/index.ts';
import type { ServerConfig, ToolwireServer } from '../src/index.ts';
import { processesWith, startHttpMcpServer, STDIO_SERVER_FILE, stdioMcpServer } from './helpers/mcp-test-servers.ts';
import { startGateway } from './helpers/start-gateway.ts';

/** A gateway whose `test/scripted` model is the current script (replaced per request). */
async function gatewayWith(config: ServerConfig): Promise<{ server: ToolwireServer; baseURL: string; script(steps: ScriptedStep[]): ScriptedModel }> {
  let current: ChatModel = createScriptedModel([]);
  // The gateway caches one model per name: this one hands each call to the current script.
  const model: ChatModel = {
    provider: 'scripted',
    modelId: 'scripted',
    generate: (request) => current.generate(request),
    stream: (request) => current.stream(request),
  };
  const started = await startGateway(model, config);
  return {
    ...started,
    script(steps) {
      const model = createScriptedModel(steps);
      current = model;
      return model;
    },
  };
}

/** What the model read back after calling `tool` with `args` (asked for by its name alone). */
async function callThroughGateway(
  gateway: Awaited<ReturnType<typeof gatewayWith>>,
  tool: string,
  args: Record<string, unknown>,
  apiKey = 'unused',
): Promise<{ answer: ToolMessage; model: ScriptedModel }> {
  const model = gateway.script([{ toolCalls: [{ name: tool, arguments: args }] }, { text: 'done' }]);
  const openai = new OpenAI({ apiKey, baseURL: gateway.baseURL, maxRetries: 0 });
  const completion = await openai.chat.completions.create({
    model: 'test/scripted',
    messages: [{ role: 'user', content: 'go' }],
    tools: [{ type: 'function', function: { name: tool } }],
  });
  expect(completion.choices[0]?.message.content).toBe('done');
  const answer = model.requests[1]?.messages.at(-1);
  if (answer?.role !== 'tool') throw new Error('expected the tool result as the last message of the second model call');
  return { answer, model };
}

describe('an MCP server over stdio (in the shell sandbox) as server tools', () => {
  let gateway: Awaited<ReturnType<typeof gatewayWith>>;
  const logLines: string[] = [];
  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    gateway = await gatewayWith({ mcpServers: { demo: stdioMcpServer() }, logger });
  });
  afterAll(() => gateway.server.close());

  it("offers the server's tool, with its input schema, when a request names it, and the result reaches the model", async () => {
    const { answer, model } = await callThroughGateway(gateway, 'demo_echo', { text: 'hi', times: 2 });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['demo_echo']);
    expect(model.requests[0]?.tools?.[0]).toMatchObject({ name: 'demo_echo', inputSchema: { properties: { text: { type: 'string', maxLength: 100 } }, required: ['text'] } });
    expect(answer.content).toBe('hi hi');
    expect(answer.result).toMatchObject({ success: true });
  });

  it("validates arguments against the server's schema before the server sees them", async () => {
    const { answer } = await callThroughGateway(gateway, 'demo_echo', { text: 'hi', times: 9 });
    expect(answer.result).toMatchObject({ success: false, error: { type: 'validation_error' } });
  });

  it('hands an isError result to the model as a failed tool call with the server text', async () => {
    const { answer } = await callThroughGateway(gateway, 'demo_lookup', { city: 'Atlantis' });
    expect(answer.result?.success).toBe(false);
    expect(answer.content).toContain('try "Paris"');
  });

  it('a server that dies mid-call costs that call an error, not the gateway; the next call restarts it', async () => {
    const { answer } = await callThroughGateway(gateway, 'demo_crash', {});
    expect(answer.result?.success).toBe(false);
    expect(answer.content).toContain('MCP server "demo" stopped while running "demo_crash"');
    const health = await fetch(`${gateway.baseURL.slice(0, -3)}/healthz`);
    expect(health.status).toBe(200);
    const after = await callThroughGateway(gateway, 'demo_add', { a: 2, b: 3 });
    expect(after.answer.content).toBe('5');
  });

  it('follows tools/list_changed: a tool the server adds becomes a server tool', async () => {
    await callThroughGateway(gateway, 'demo_add_tool', {});
    await vi.waitFor(() => expect(logLines.some((line) => line.includes('server tools changed') && line.includes('demo_late'))).toBe(true), { timeout: 5000 });
    const { answer } = await callThroughGateway(gateway, 'demo_late', {});
    expect(answer.content).toBe('late tool ran');
  });

  it('stops the server process when the gateway closes', async () => {
    const second = await gatewayWith({ mcpServers: { other: stdioMcpServer() } });
    const before = processesWith(STDIO_SERVER_FILE);
    expect(before).toBeGreaterThan(0);
    await second.server.close();
    await vi.waitFor(() => expect(processesWith(STDIO_SERVER_FILE)).toBeLessThan(before), { timeout: 5000 });
  });
});

describe('an MCP server over streamable HTTP on loopback as server tools, under key permissions', () => {
  let mcp: Awaited<ReturnType<typeof startHttpMcpServer>>;
  let gateway: Awaited<ReturnType<typeof gatewayWith>>;
  beforeAll(async () => {
    mcp = await startHttpMcpServer('mcp-token');
    gateway = await gatewayWith({
      mcpServers: { remote: { url: mcp.url, headers: { authorization: 'Bearer mcp-token' }, allowPrivateNetwork: true } },
      keys: [
        { id: 'echo-only', keyHash: hashApiKey('sk-echo'), tools: ['remote_echo'] },
        { id: 'all-remote', keyHash: hashApiKey('sk-remote'), tools: ['remote_*'], alwaysTools: ['remote_add'] },
      ],
    });
  });
  afterAll(async () => {
    await gateway.server.close();
    await mcp.close();
  });

  it("runs a tool the key may use and gives the model the server's answer", async () => {
    const { answer } = await callThroughGateway(gateway, 'remote_echo', { text: 'over http' }, 'sk-echo');
    expect(answer.content).toBe('over http');
  });

  it('runs the tool inside a streamed request too; the client gets only the final answer', async () => {
    const model = gateway.script([{ toolCalls: [{ name: 'remote_echo', arguments: { text: 'streamed', times: 2 } }] }, { text: 'echoed twice' }]);
    const openai = new OpenAI({ apiKey: 'sk-echo', baseURL: gateway.baseURL, maxRetries: 0 });
    const stream = await openai.chat.completions.create({
      model: 'test/scripted',
      stream: true,
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ type: 'function', function: { name: 'remote_echo' } }],
    });
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.choices[0]?.delta.tool_calls).toBeUndefined();
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('echoed twice');
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'streamed streamed' });
  });

  it("refuses a tool outside the key's tools list with 403 tool_not_allowed", async () => {
    gateway.script([{ text: 'never asked' }]);
    const openai = new OpenAI({ apiKey: 'sk-echo', baseURL: gateway.baseURL, maxRetries: 0 });
    const refused = openai.chat.completions.create({
      model: 'test/scripted',
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ type: 'function', function: { name: 'remote_add' } }],
    });
    await expect(refused).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    await expect(refused).rejects.toMatchObject({ status: 403, code: 'tool_not_allowed' });
  });

  it("adds a key's alwaysTools from an MCP server, matched by a glob in its tools", async () => {
    const model = gateway.script([{ toolCalls: [{ name: 'remote_add', arguments: { a: 20, b: 22 } }] }, { text: '42' }]);
    const openai = new OpenAI({ apiKey: 'sk-remote', baseURL: gateway.baseURL, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: 'test/scripted', messages: [{ role: 'user', content: 'add' }] });
    expect(completion.choices[0]?.message.content).toBe('42');
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['remote_add']);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: '42' });
  });
});

describe('an MCP tool whose name is taken', () => {
  it('is left out with a warning; the tool that had the name keeps it', async () => {
    const mcp = await startHttpMcpServer('t');
    const logLines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    const mine = defineTool({ name: 'remote_echo', description: 'Not the MCP one', parameters: { type: 'object', properties: {} }, execute: () => 'the extra tool' });
    const started = await gatewayWith({ mcpServers: { remote: { url: mcp.url, headers: { authorization: 'Bearer t' }, allowPrivateNetwork: true } }, extraTools: [mine], logger });
    try {
      expect(logLines.some((line) => line.includes('"tool":"remote_echo"') && line.includes('left out'))).toBe(true);
      expect((await callThroughGateway(started, 'remote_echo', {})).answer.content).toBe('the extra tool');
      expect((await callThroughGateway(started, 'remote_add', { a: 1, b: 1 })).answer.content).toBe('2');
    } finally {
      await started.server.close();
      await mcp.close();
    }
  });
});

describe('an MCP server that cannot start', () => {
  // Nothing listens on port 1: the connection is refused at once.
  const unreachable = { url: 'http://127.0.0.1:1/mcp', allowPrivateNetwork: true } as const;

  it('stops the gateway from starting, naming the server, unless it is optional', async () => {
    const failed = await startGateway(createScriptedModel([]), { mcpServers: { broken: unreachable } }).catch((error: unknown) => error);
    expect(DynamicToolsStartError.isInstance(failed)).toBe(true);
    expect(failed).toMatchObject({ sources: ['mcp:broken'] });
    expect((failed as Error).message).toMatch(/^mcp:broken: .+\n.*"optional": true/);
  });

  it('stops the servers that did start when another one fails', async () => {
    const before = processesWith(STDIO_SERVER_FILE);
    await expect(startGateway(createScriptedModel([]), { mcpServers: { good: stdioMcpServer(), broken: unreachable } })).rejects.toMatchObject({ sources: ['mcp:broken'] });
    await vi.waitFor(() => expect(processesWith(STDIO_SERVER_FILE)).toBe(before), { timeout: 5000 });
  });

  it('starts without its tools when it is optional, and logs why', async () => {
    const logLines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    const started = await startGateway(createScriptedModel([{ text: 'fine' }]), { mcpServers: { broken: { ...unreachable, optional: true } }, logger });
    try {
      expect(logLines.some((line) => line.includes('mcp:broken is left out (optional)'))).toBe(true);
      const openai = new OpenAI({ apiKey: 'unused', baseURL: started.baseURL, maxRetries: 0 });
      const completion = await openai.chat.completions.create({ model: 'test/scripted', messages: [{ role: 'user', content: 'hi' }] });
      expect(completion.choices[0]?.message.content).toBe('fine');
    } finally {
      await started.server.close();
    }
  });
});
