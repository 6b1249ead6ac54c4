// An MCP server written with the official SDK for the gateway's tests: tools that answer,
// one that reports an error, one that kills its own server, and one that adds a tool
// (the SDK then sends tools/list_changed).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';

/** What `crash` does; the stdio entry exits the process, the HTTP one closes the session. */
export interface CrashHook {
  crash(): void;
}

export function createMcpTestServer(hook: CrashHook): McpServer {
  const server = new McpServer({ name: 'toolwire-gateway-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the text back', inputSchema: { text: z.string().max(100), times: z.number().int().min(1).max(3).optional() } },
    ({ text, times }) => ({ content: [{ type: 'text', text: Array.from({ length: times ?? 1 }, () => text).join(' ') }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('lookup', { description: 'Looks a city up', inputSchema: { city: z.string() } }, ({ city }) => ({
    content: [{ type: 'text', text: `unknown city: ${city}; try "Paris"` }],
    isError: true,
  }));
  server.registerTool('crash', { description: 'Stops the server in the middle of the call' }, () => {
    hook.crash();
    return new Promise<never>(() => undefined);
  });
  server.registerTool('add_tool', { description: 'Registers the tool "late"' }, () => {
    server.registerTool('late', { description: 'Registered later' }, () => ({ content: [{ type: 'text', text: 'late tool ran' }] }));
    return { content: [{ type: 'text', text: 'added' }] };
  });
  return server;
}
