import type { McpHttpServer, McpStdioServer } from '@toolwire/mcp';
import type { OpenApiAuth } from '@toolwire/openapi';

/** What every dynamic tool source (MCP server, OpenAPI document) shares in the config. */
export interface DynamicToolSourceOptions {
  /**
   * When the source cannot be started at startup: `false` (default) stops the gateway from
   * starting; `true` logs the error and starts without its tools.
   */
  optional?: boolean;
}

/**
 * An MCP server whose tools become server tools named `<entry name>_<tool>`: a stdio
 * command run in the shell sandbox, or a streamable HTTP URL reached through the guarded
 * fetch. Secrets come from the gateway's environment (resolved when the config is read).
 */
export type McpServerConfig = (Omit<McpStdioServer, 'isolation'> | McpHttpServer) & DynamicToolSourceOptions;

/** An OpenAPI 3.0/3.1 document whose operations become server tools named `<entry name>_<operationId>`. */
export interface OpenApiSourceConfig extends DynamicToolSourceOptions {
  /** The document's path (JSON or YAML), or the document itself (programmatic use). */
  document: string | Record<string, unknown>;
  /** Where requests go (default: the document's first server). */
  baseURL?: string;
  /** Only these operationIds (default: all). */
  operations?: string[];
  /** Credentials for every request, never shown to the model (in the file: taken from environment variables). */
  auth?: OpenApiAuth;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** Hosts requests may reach (default: the document's servers and `baseURL`). */
  allowedDomains?: string[];
  /** Allow loopback and private addresses (default false). */
  allowPrivateNetwork?: boolean;
}
