import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CommandLimits } from '@toolwire/sandbox';

/**
 * A local MCP server started as a process speaking stdio, inside the shell sandbox
 * (bubblewrap): read-only system, one writable directory, no network unless asked,
 * process/memory/file limits, a scrubbed environment.
 */
export interface McpStdioServer {
  /** The program (looked up on the sandbox's PATH, `/usr/local/bin:/usr/bin:/bin`, or absolute). */
  command: string;
  args?: readonly string[];
  /** Variables added to the sandbox's cleared environment (PATH, HOME, LANG). */
  env?: Record<string, string>;
  /** The server's writable working directory (default: a fresh temporary one, removed on close). */
  cwd?: string;
  /** Host paths bound read-only (the server's code, a runtime outside `/usr`); default none. */
  readOnlyPaths?: readonly string[];
  /** Let the server reach the network (default false). */
  network?: boolean;
  /** `'none'` runs the server without isolation; only pass it knowingly (default `'bubblewrap'`). */
  isolation?: 'bubblewrap' | 'none';
  /** Sandbox limits; `memoryMb` defaults to 2048 here (Node 24 reserves more than 1 GiB of address space). */
  limits?: CommandLimits;
}

/** A remote MCP server reached over streamable HTTP through the sandbox's guarded fetch. */
export interface McpHttpServer {
  url: string | URL;
  /** Headers sent with every request (e.g. `authorization`). */
  headers?: Record<string, string>;
  /** Hosts the transport may reach (default: the URL's host only). */
  allowedDomains?: readonly string[];
  /** Allow loopback and private addresses (default false; a local server needs it). */
  allowPrivateNetwork?: boolean;
  /** Largest response body one request may stream, in bytes (default 8 MiB). */
  maxResponseBytes?: number;
}

/** Where `mcpTools` finds its server: a connected SDK `Client` (yours to close), a stdio command, or a URL. */
export type McpServerSource = Client | McpStdioServer | McpHttpServer;
