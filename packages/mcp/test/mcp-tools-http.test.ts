import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { executeToolCall, ToolRegistry } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectionError, mcpTools } from '../src/index.ts';
import type { McpToolSet } from '../src/index.ts';
import { createTestServer } from './fixtures/test-server.ts';

const TOKEN = 'Bearer test-token';
let httpServer: Server;
let url: string;
const transports = new Map<string, StreamableHTTPServerTransport>();
const methods: string[] = [];

beforeAll(async () => {
  httpServer = createServer((req, res) => {
    methods.push(req.method ?? '');
    if (req.headers.authorization !== TOKEN) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const existing = transports.get(sessionId);
      // An unknown session (the server restarted): 404, as the specification says.
      if (existing === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      else void existing.handleRequest(req, res);
      return;
    }
    // A new session: one SDK server per client, as the SDK's own examples do.
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    const server = createTestServer({ exit: () => void transport.close(), writeRawStdout: () => undefined });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  for (const transport of transports.values()) await transport.close();
  httpServer.closeAllConnections();
  await new Promise<void>((resolve) => httpServer.close(() => resolve()));
});

let callNumber = 0;
function call(tools: Tool[], name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return executeToolCall({ id: `call_${++callNumber}`, name, arguments: args }, { registry: new ToolRegistry({ tools }) });
}

describe('mcpTools over streamable HTTP through the guarded fetch', () => {
  let set: McpToolSet;
  beforeAll(async () => {
    set = await mcpTools({ url, headers: { authorization: TOKEN }, allowPrivateNetwork: true }, { namePrefix: 'remote_', callTimeoutMs: 1000 });
  });
  afterAll(() => set.close());

  it('lists and calls tools, with the prefix on their names', async () => {
    expect(set.name).toBe(new URL(url).host);
    expect(set.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['remote_echo', 'remote_add']));
    expect(await call(set.tools, 'remote_echo', { text: 'over http' })).toMatchObject({ success: true, message: 'over http' });
    expect(await call(set.tools, 'remote_add', { a: 1, b: 2 })).toMatchObject({ value: { structuredContent: { sum: 3 } } });
  });

  it('receives tools/list_changed on the server-sent event stream', async () => {
    const changed = new Promise<Tool[]>((resolve) => set.onToolsChanged(resolve));
    await call(set.tools, 'remote_add_tool');
    expect((await changed).map((tool) => tool.name)).toContain('remote_late');
  });

  it('starts a new session when the server forgot the old one (a server restart)', async () => {
    for (const transport of transports.values()) await transport.close();
    transports.clear();
    // The call that meets the 404 opens a new session and is sent again: the server never ran it.
    expect(await call(set.tools, 'remote_echo', { text: 'after restart' })).toMatchObject({ success: true, message: 'after restart' });
    expect(transports.size).toBe(1);
  });

  it('answers a hanging tool with a timeout', async () => {
    expect(await call(set.tools, 'remote_hang')).toMatchObject({ success: false, error: { type: 'timeout' } });
    expect(await call(set.tools, 'remote_echo', { text: 'alive' })).toMatchObject({ success: true });
  });
});

describe('mcpTools over HTTP, refused', () => {
  it('refuses a loopback server unless allowPrivateNetwork', async () => {
    const error: unknown = await mcpTools({ url, headers: { authorization: TOKEN } }).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('loopback');
  });

  it('refuses a host off its allow-list', async () => {
    const error: unknown = await mcpTools({ url, allowedDomains: ['mcp.example.com'], allowPrivateNetwork: true }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('not on the allow-list');
  });

  it('reports a server that rejects the credentials', async () => {
    const error: unknown = await mcpTools({ url, headers: { authorization: 'Bearer wrong' }, allowPrivateNetwork: true }).catch((e: unknown) => e);
    expect(McpConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/401|unauthorized/i);
  });

  it('ends its session with DELETE on close', async () => {
    const set = await mcpTools({ url, headers: { authorization: TOKEN }, allowPrivateNetwork: true });
    const before = methods.length;
    await set.close();
    expect(methods.slice(before)).toContain('DELETE');
  });
});
