export { mcpTools } from './mcp-tools.ts';
export type { McpToolSet, McpToolsOptions } from './mcp-tools.ts';
export type { McpHttpServer, McpServerSource, McpStdioServer } from './mcp-server-source.ts';
export type { McpToolValue } from './map-call-tool-result.ts';
export { McpConnectionError } from './errors.ts';
