import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { executeToolCall, runTools, ToolRegistry } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionError, mcpTools } from '../src/index.ts';
import type { McpToolSet } from '../src/index.ts';
import { stdioTestServer, workspaceRoot } from './helpers.ts';
import { processesWith } from '../../../test/processes.ts';


let callNumber = 0;
function call(tools: Tool[], name: string, args: Record<string, unknown> = {}, timeoutMs?: number): Promise<ToolResult> {
  return executeToolCall(
    { id: `call_${++callNumber}`, name, arguments: args },
    { registry: new ToolRegistry({ tools }), ...(timeoutMs === undefined ? {} : { timeoutMs }) },
  );
}

describe('mcpTools over stdio in the shell sandbox', () => {
  let set: McpToolSet;
  const warnings: string[] = [];
  beforeAll(async () => {
    set = await mcpTools(stdioTestServer(), { callTimeoutMs: 1500, onWarning: (message) => warnings.push(message) });
  });
  afterAll(() => set.close());

  it("lists the server's tools as core tools with their input schemas", () => {
    const names = set.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'add', 'pixel', 'lookup', 'hang', 'crash']));
    const echo = set.tools.find((tool) => tool.name === 'echo')!;
    expect(echo.description).toBe('Echoes the text back');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', maxLength: 100 } }, required: ['text'] });
  });

  it('calls a tool and returns its text as the result', async () => {
    expect(await call(set.tools, 'echo', { text: 'hi', times: 2 })).toMatchObject({ success: true, message: 'hi hi' });
  });

  it("checks arguments against the tool's inputSchema before the server sees them", async () => {
    const result = await call(set.tools, 'echo', { text: 'hi', times: 7 });
    expect(result).toMatchObject({ success: false, error: { type: 'validation_error' } });
    expect(result.message).toContain('times');
  });

  it('maps structured content, images and isError', async () => {
    const added = await call(set.tools, 'add', { a: 2, b: 3 });
    expect(added).toMatchObject({ success: true, message: '5', value: { structuredContent: { sum: 5 } } });
    const pixel = await call(set.tools, 'pixel');
    expect(pixel.message).toBe('one red pixel\n[image: image/png, 70 bytes]');
    expect((pixel.value as { content: { type: string; mimeType?: string }[] }).content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const lookup = await call(set.tools, 'lookup', { city: 'Atlantis' });
    expect(lookup).toMatchObject({ success: false, error: { type: 'execution_error' }, message: 'unknown city: Atlantis; try "Paris"' });
  });

  it('works in the core tool loop', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }] }, { text: 'The sum is 42.' }]);
    const result = await runTools({ model, tools: set.tools, messages: [{ role: 'user', content: 'Add 20 and 22' }] });
    expect(result.text).toBe('The sum is 42.');
    expect(result.steps[0]?.toolResults[0]).toMatchObject({ name: 'add', success: true, message: '42' });
  });

  it('runs the server in the sandbox: the host outside its directory is read-only', async () => {
    const target = join(workspaceRoot(), 'planted-by-mcp.txt');
    const result = await call(set.tools, 'write_outside', { path: target });
    expect(result.message).toBe('refused: EROFS');
    expect(existsSync(target)).toBe(false);
  });

  it('answers a hanging tool with a timeout and keeps serving', async () => {
    const hung = await call(set.tools, 'hang');
    expect(hung).toMatchObject({ success: false, error: { type: 'timeout' } });
    expect(hung.message).toContain('did not answer within 1500 ms');
    expect(await call(set.tools, 'echo', { text: 'still here' })).toMatchObject({ success: true, message: 'still here' });
  });

  it('skips lines that are not JSON-RPC and keeps the answer', async () => {
    expect(await call(set.tools, 'garbage')).toMatchObject({ success: true, message: 'answered after garbage' });
    expect(warnings.some((warning) => warning.includes('not a JSON-RPC message'))).toBe(true);
  });

  it('answers a result of the wrong shape with an error for that call only', async () => {
    const result = await call(set.tools, 'malformed_result');
    expect(result).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(await call(set.tools, 'echo', { text: 'fine' })).toMatchObject({ success: true, message: 'fine' });
  });

  it('keeps only a tail of a flood on stderr', async () => {
    expect(await call(set.tools, 'stderr_flood')).toMatchObject({ success: true, message: 'answered after stderr' });
  });

  it('follows tools/list_changed', async () => {
    const changed = new Promise<Tool[]>((resolve) => {
      const off = set.onToolsChanged((tools) => {
        off();
        resolve(tools);
      });
    });
    expect(await call(set.tools, 'add_tool')).toMatchObject({ success: true });
    const tools = await changed;
    expect(tools.map((tool) => tool.name)).toContain('late');
    expect(set.tools).toBe(tools);
    expect(await call(set.tools, 'late')).toMatchObject({ success: true, message: 'late tool ran' });
  });
});

describe('mcpTools when the server dies or floods', () => {
  it('costs the call in flight an error, restarts for the next call, and stops restarting past the budget', async () => {
    const set = await mcpTools(stdioTestServer(), { maxRestarts: 2, restartWindowMs: 60_000 });
    try {
      const crashed = await call(set.tools, 'crash');
      expect(crashed).toMatchObject({ success: false, error: { type: 'execution_error' } });
      expect(crashed.message).toContain('stopped while running "crash"');
      expect(await call(set.tools, 'echo', { text: 'back' })).toMatchObject({ success: true, message: 'back' });
      expect(await call(set.tools, 'crash')).toMatchObject({ success: false });
      expect(await call(set.tools, 'echo', { text: 'again' })).toMatchObject({ success: true, message: 'again' });
      expect(await call(set.tools, 'crash')).toMatchObject({ success: false });
      const refused = await call(set.tools, 'echo', { text: 'no more' });
      expect(refused).toMatchObject({ success: false, error: { type: 'execution_error' } });
      expect(refused.message).toContain('stopped 2 times within 60 s');
    } finally {
      await set.close();
    }
  });

  it('stops a server that floods stdout with one huge message and restarts it', async () => {
    const set = await mcpTools(stdioTestServer(), { maxMessageBytes: 64 * 1024, callTimeoutMs: 5000 });
    try {
      const flooded = await call(set.tools, 'flood');
      expect(flooded).toMatchObject({ success: false });
      expect(await call(set.tools, 'echo', { text: 'recovered' })).toMatchObject({ success: true, message: 'recovered' });
    } finally {
      await set.close();
    }
  });

  it('ends the server process on close and fails later calls', async () => {
    const marker = `--marker=${randomUUID()}`;
    const set = await mcpTools(stdioTestServer({ args: [stdioTestServer().args![0]!, marker] }));
    const tools = set.tools;
    expect(processesWith(marker)).toBeGreaterThan(0);
    await set.close();
    expect(processesWith(marker)).toBe(0);
    const result = await call(tools, 'echo', { text: 'x' });
    expect(result).toMatchObject({ success: false });
    expect(result.message).toContain('was closed');
  });
});

describe('mcpTools when the server cannot start', () => {
  it('throws McpConnectionError with the end of its stderr', async () => {
    const error: unknown = await mcpTools(stdioTestServer({ args: ['-e', 'console.error("missing config: set API_URL"); process.exit(3)'] }), {
      connectTimeoutMs: 5000,
    }).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as McpConnectionError).message).toContain('missing config: set API_URL');
  });

  it('throws McpConnectionError for a command the sandbox does not have', async () => {
    const error: unknown = await mcpTools({ command: 'no-such-mcp-server' }, { connectTimeoutMs: 5000 }).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('no-such-mcp-server');
  });

  it('throws McpConnectionError for a server that never answers initialize', async () => {
    const error: unknown = await mcpTools(stdioTestServer({ args: ['-e', 'setInterval(() => {}, 1000)'] }), { connectTimeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/timed out/i);
  });
});
