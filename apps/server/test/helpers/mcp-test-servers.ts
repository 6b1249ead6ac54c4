import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpStdioServer } from '@toolwire/mcp';
import { createMcpTestServer } from '../__fixtures__/mcp/mcp-test-server.ts';
import { processesWith } from '../../../../test/processes.ts';

export { processesWith };

const here = dirname(fileURLToPath(import.meta.url));
/** The file the stdio test server runs; also the marker of its processes. */
export const STDIO_SERVER_FILE = join(here, '..', '__fixtures__', 'mcp', 'mcp-stdio-server.ts');

function workspaceRoot(): string {
  let dir = here;
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('pnpm-workspace.yaml not found above the tests');
    dir = parent;
  }
  return dir;
}

/**
 * The test server as a sandboxed stdio server: this Node (24 runs TypeScript as it is) and
 * the workspace (where the SDK and zod resolve) bound read-only, nothing else of the host.
 */
export function stdioMcpServer(): McpStdioServer {
  const node = realpathSync(process.execPath);
  return { command: node, args: [STDIO_SERVER_FILE], readOnlyPaths: [workspaceRoot(), dirname(node)] };
}


/** The test server over streamable HTTP on 127.0.0.1, one SDK server per session, behind a bearer token. */
export async function startHttpMcpServer(token: string): Promise<{ url: string; close(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const httpServer = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const existing = transports.get(sessionId);
      if (existing === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      else void existing.handleRequest(req, res);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    const server = createMcpTestServer({ crash: () => void transport.close() });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  return {
    url,
    async close() {
      for (const transport of transports.values()) await transport.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/**
 * An MCP server over streamable HTTP on 127.0.0.1 without sessions (a new SDK server per
 * request, as stateless servers run), with the tools `register` adds.
 */
export async function startStatelessMcpServer(register: (server: McpServer) => void): Promise<{ url: string; close(): Promise<void> }> {
  const httpServer = createServer((req, res) => {
    const server = new McpServer({ name: 'toolwire-gateway-test-stateless', version: '1.0.0' });
    register(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    async close() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
