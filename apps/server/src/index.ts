export { createServer } from './server.ts';
export type { ToolwireServer } from './server.ts';
export type { BuiltinToolName, LimitsConfig, ProvidersConfig, ServerConfig, ServerToolsConfig } from './config/server-config.ts';
export type { ApiKeyConfig } from './auth/api-key-store.ts';
export { hashApiKey } from './auth/hash-key.ts';
export type { ModelProvider } from './models/model-provider.ts';
export type { ServerTool } from './tools/server-tool.ts';
export type { ToolAuditEvent } from './tools/audit-event.ts';
