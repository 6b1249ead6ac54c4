import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { executeToolCall, ToolRegistry } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionError, mcpTools } from '../src/index.ts';
import type { McpToolSet } from '../src/index.ts';
import { hostileStdioServer } from './helpers.ts';
import { processesWith } from '../../../test/processes.ts';

// A hand-written server (fixtures/hostile-stdio-server.ts) at its worst: every byte it sends
// is hostile, and each attack must cost at most the call in flight.
let callNumber = 0;
function call(tools: Tool[], name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return executeToolCall({ id: `call_${++callNumber}`, name, arguments: args }, { registry: new ToolRegistry({ tools }) });
}


async function listWarnings(mode: string, options: Parameters<typeof mcpTools>[1] = {}): Promise<{ set: McpToolSet; warnings: string[] }> {
  const warnings: string[] = [];
  const set = await mcpTools(hostileStdioServer(mode), { connectTimeoutMs: 20_000, ...options, onWarning: (message) => warnings.push(message) });
  return { set, warnings };
}

describe('mcpTools against a hostile stdio server: its tool list', () => {
  it('keeps the first maxTools of 100 000 tools and stops listing there', { timeout: 30_000 }, async () => {
    const { set, warnings } = await listWarnings('many_tools');
    try {
      expect(set.tools.length).toBe(1000);
      expect(warnings.join('\n')).toContain('more than 1000 tools (maxTools)');
    } finally {
      await set.close();
    }
  });

  it('stops at pagination cursors that loop or never end, and says so', { timeout: 30_000 }, async () => {
    const looping = await listWarnings('cursor_loop');
    await looping.set.close();
    expect(looping.set.tools.map((tool) => tool.name).sort()).toEqual(['from_a', 'from_b']);
    expect(looping.warnings.join('\n')).toContain('pages loop');
    const endless = await listWarnings('cursor_endless');
    await endless.set.close();
    expect(endless.set.tools.length).toBe(50);
    expect(endless.warnings.join('\n')).toContain('past 50 pages');
  });

  it('cuts a 3 MB description', { timeout: 30_000 }, async () => {
    const { set, warnings } = await listWarnings('huge_description');
    await set.close();
    expect(set.tools.find((tool) => tool.name === 'wordy')?.description?.length).toBe(10_001);
    expect(warnings.join('\n')).toContain('cut to 10000 of its 3145728 characters');
  });

  it('leaves out each tool it cannot use and keeps the others', { timeout: 30_000 }, async () => {
    const { set, warnings } = await listWarnings('hostile_schemas');
    try {
      const names = set.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'proto', 'a_b', 'with_output']));
      for (const gone of ['deep', 'cycle', 'loop_ref', 'no_schema', 'not_an_object']) expect(names).not.toContain(gone);
      const text = warnings.join('\n');
      expect(text).toContain('"no_schema" is left out: it is not a valid MCP tool (inputSchema');
      expect(text).toContain('"a b" is left out: its name "a_b" is taken by "a/b"');
      // Nothing a server names reaches a warning whole.
      expect(Math.max(...warnings.map((warning) => warning.length))).toBeLessThan(2000);
      expect(await call(set.tools, 'echo')).toMatchObject({ success: true, message: 'echo' });
      // The tool's outputSchema holds, compiled with core's bounds.
      const checked = await call(set.tools, 'with_output');
      expect(checked).toMatchObject({ success: false, error: { type: 'execution_error' } });
      expect(checked.message).toContain('does not match its outputSchema');
    } finally {
      await set.close();
    }
  });

  it('says which limit a tool list broke when it cannot be listed', { timeout: 30_000 }, async () => {
    const error: unknown = await mcpTools(hostileStdioServer('many_tools'), { maxMessageBytes: 1024 * 1024 }).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('sent a message larger than 1048576 bytes');
  });

  // Found by fuzzing: a default label is in every message and warning, and a command line can carry a whole configuration.
  it('cuts a default label made of a long command line', async () => {
    const server = hostileStdioServer('plain');
    const set = await mcpTools({ ...server, args: [...server.args!, `--config=${'x'.repeat(5000)}`] }, { connectTimeoutMs: 20_000 });
    await set.close();
    expect(set.name.length).toBe(121);
    expect(set.name.endsWith('…')).toBe(true);
  });

  it('throws McpConnectionError within connectTimeoutMs for a server that answers initialize and then nothing', async () => {
    const error: unknown = await mcpTools(hostileStdioServer('init_then_silent'), { connectTimeoutMs: 1000 }).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    // Found by fuzzing: the SDK's "MCP error -32001: Request timed out" named no limit to raise.
    expect((error as Error).message).toMatch(/timed out: no answer within 1000 ms \(connectTimeoutMs\)|took longer than 1000 ms \(connectTimeoutMs\)/);
  });
});

describe('mcpTools against a hostile stdio server: its answers', () => {
  let set: McpToolSet;
  const warnings: string[] = [];
  const marker = `--marker=${randomUUID()}`;
  beforeAll(async () => {
    set = await mcpTools(hostileStdioServer('plain', { args: [...hostileStdioServer('plain').args!, marker] }), {
      callTimeoutMs: 5000,
      maxRestarts: 10,
      onWarning: (message) => warnings.push(message),
    });
  });
  afterAll(async () => {
    await set.close();
    expect(processesWith(marker)).toBe(0);
  });

  it("leaves no listener on a caller's signal that outlives its calls", async () => {
    const echo = set.tools.find((tool) => tool.name === 'echo')!;
    const shared = new AbortController();
    for (let i = 0; i < 20; i++) expect(await echo.execute!({}, { toolCallId: `shared_${i}`, signal: shared.signal })).toMatchObject({ message: 'echo' });
    // Before: 20 (the SDK's, never removed), and aborting it later cancelled 20 answered calls.
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('answers 200 000 malformed content blocks with a short error naming the first', async () => {
    const result = await call(set.tools, 'many_issues');
    expect(result).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(result.message).toContain('not valid MCP: content[0] is not a valid content block (type "bogus")');
    expect(result.message.length).toBeLessThan(500);
  });

  it('refuses structuredContent that is not an object, and a result nested past the stack', async () => {
    expect((await call(set.tools, 'structured_array')).message).toContain('its "structuredContent" is a list; it must be a JSON object');
    const deep = await call(set.tools, 'deep_structured');
    expect(deep).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(deep.message).toContain('nested more than 100 levels deep');
    expect(await call(set.tools, 'echo')).toMatchObject({ success: true });
  });

  it("takes the server's own -32000 error for its error (not a stop), with its text cut", async () => {
    const result = await call(set.tools, 'huge_error');
    expect(result).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(result.message).toContain('refused "huge_error": MCP error -32000: boom');
    expect(result.message.length).toBeLessThan(2500);
  });

  it('uses the first answer, and reports stray and duplicate answers', async () => {
    expect(await call(set.tools, 'stray_responses')).toMatchObject({ success: true, message: 'first' });
    // The duplicate comes after the answer the call took.
    const stray = () => warnings.filter((warning) => warning.includes('unknown message ID')).length;
    for (let waited = 0; stray() < 3 && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stray()).toBe(3);
  });

  // Found by fuzzing: the answer was dropped as a malformed line, and the call waited its whole callTimeoutMs.
  it('fails a call at once whose answer has its id but is not valid JSON-RPC, saying what is wrong', async () => {
    const started = Date.now();
    const result = await call(set.tools, 'malformed_answer');
    expect(result).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(result.message).toContain('"malformed_answer" on MCP server');
    expect(result.message).toContain('failed: its answer is not a valid JSON-RPC response: the server sent a message MCP does not allow (at jsonrpc:');
    // Not the 5 s callTimeoutMs.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await call(set.tools, 'echo')).toMatchObject({ success: true });
  });

  it('stops a server whose line never ends, and says why', async () => {
    const result = await call(set.tools, 'endless_line');
    expect(result.message).toContain('stopped while running "endless_line" (the MCP server sent a message larger than 4194304 bytes');
    expect(await call(set.tools, 'echo')).toMatchObject({ success: true });
  });

  it('survives a server that exits mid-call, also leaving a grandchild holding its pipes', async () => {
    expect((await call(set.tools, 'exit_mid_call')).message).toContain('stopped while running "exit_mid_call"');
    expect(await call(set.tools, 'echo')).toMatchObject({ success: true });
    expect((await call(set.tools, 'orphan_holds_pipes')).message).toContain('stopped while running "orphan_holds_pipes"');
    expect(await call(set.tools, 'echo')).toMatchObject({ success: true });
  });
});

describe('mcpTools against a hostile stdio server: floods', () => {
  it('answers through a flood of progress, logging and list_changed notifications, and reports only a few', { timeout: 30_000 }, async () => {
    const warnings: string[] = [];
    const set = await mcpTools(hostileStdioServer('plain'), { callTimeoutMs: 20_000, onWarning: (message) => warnings.push(message) });
    try {
      // The server floods for 1.5 s, then answers.
      const flooded = await call(set.tools, 'notify_flood');
      expect(flooded).toMatchObject({ success: true });
      // About 30 000 list_changed in 1.5 s: listed again at most once a second.
      const listings = Number(/listed (\d+) times/.exec(flooded.message)?.[1]);
      expect(listings).toBeGreaterThanOrEqual(1);
      expect(listings).toBeLessThanOrEqual(3);
      expect(warnings.length).toBeGreaterThan(0);
      expect(warnings.length).toBeLessThanOrEqual(21);
      expect(set.tools.length).toBe(13);
      expect(await call(set.tools, 'echo')).toMatchObject({ success: true });
    } finally {
      await set.close();
    }
  });

  it('stops a server that floods requests without reading our answers, instead of buffering them without bound', { timeout: 30_000 }, async () => {
    const warnings: string[] = [];
    const set = await mcpTools(hostileStdioServer('plain'), { callTimeoutMs: 20_000, maxMessageBytes: 256 * 1024, onWarning: (message) => warnings.push(message) });
    try {
      const flooded = await call(set.tools, 'ping_flood');
      expect(flooded).toMatchObject({ success: false, error: { type: 'execution_error' } });
      expect(flooded.message).toContain('does not read its input');
      expect(warnings.join('\n')).toContain('does not read its input');
      expect(await call(set.tools, 'echo')).toMatchObject({ success: true, message: 'echo' });
    } finally {
      await set.close();
    }
  });
});
