// The stdio entry of the gateway's MCP test server: `node mcp-stdio-server.ts`.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpTestServer } from './mcp-test-server.ts';

const server = createMcpTestServer({ crash: () => process.exit(1) });
await server.connect(new StdioServerTransport());
