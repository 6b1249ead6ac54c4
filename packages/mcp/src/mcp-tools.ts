import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, toolOutput } from '@toolwire/core';
import type { JsonSchema, Tool, ToolExecutionContext, ToolOutput } from '@toolwire/core';
import { McpConnectionError } from './errors.ts';
import { mapCallError } from './map-call-error.ts';
import { mapCallToolResult } from './map-call-tool-result.ts';
import type { McpHttpServer, McpServerSource, McpStdioServer } from './mcp-server-source.ts';
import { OpenFailedError, openHttpConnection, openStdioConnection, scratchDirectory } from './open-connection.ts';
import type { ConnectionLimits, OpenConnection } from './open-connection.ts';
import { exposedToolName } from './tool-name.ts';

/** Options of `mcpTools`. */
export interface McpToolsOptions {
  /** A label for messages (default: the command line or the URL's host). */
  name?: string;
  /** Put before every tool name (e.g. `github_`), to keep two servers' tools apart. */
  namePrefix?: string;
  /** Time one tool call may take before it is answered `timeout` (default 60 000 ms). */
  callTimeoutMs?: number;
  /** Time to start, initialize and list tools (default 15 000 ms). */
  connectTimeoutMs?: number;
  /** Restarts of a server that died or was stopped, within `restartWindowMs` (default 3). */
  maxRestarts?: number;
  /** The window `maxRestarts` counts in (default 60 000 ms). */
  restartWindowMs?: number;
  /** One message from the server larger than this stops it (stdio; default 4 MiB). */
  maxMessageBytes?: number;
  /** Lines that are not JSON-RPC tolerated before a stdio server is stopped (default 100). */
  maxMalformedMessages?: number;
  /** What the model reads of one result is cut here (default 100 000 characters). */
  maxResultChars?: number;
  /** Tools left out (a schema that does not compile, a name clash) and protocol noise. */
  onWarning?: (message: string) => void;
}

/** The tools of one MCP server, kept current, and the connection behind them. */
export interface McpToolSet extends AsyncDisposable {
  /** The server's label, as used in messages. */
  readonly name: string;
  /** The server's tools as core tools, as of the last listing (updated on `tools/list_changed`). */
  readonly tools: Tool[];
  /** Lists the tools again now. */
  refresh(): Promise<Tool[]>;
  /** Called with the new list whenever it changes; returns an unsubscribe function. */
  onToolsChanged(listener: (tools: Tool[]) => void): () => void;
  /** Stops the server (or leaves a client you passed in open) and fails later calls. */
  close(): Promise<void>;
}

const MAX_TOOL_PAGES = 50;

/**
 * Connects to an MCP server and returns its tools as core `Tool`s for `runTools`, any
 * provider, a `ToolRegistry` or the gateway: arguments checked against each tool's
 * `inputSchema` like any tool's, results mapped to `ToolResult`s (text, images and other
 * content, `structuredContent`, `isError`). A stdio server runs inside the shell sandbox; an
 * HTTP server is reached through the guarded fetch's allow-list. A server that hangs, dies,
 * floods or sends garbage costs the call in flight an error; a dead server is restarted for
 * the next call, at most `maxRestarts` times per `restartWindowMs`. Throws
 * `McpConnectionError` when the server cannot be started or listed.
 *
 * @example
 * const fs = await mcpTools({ command: 'node', args: ['/srv/mcp/fs-server.js'], readOnlyPaths: ['/srv/mcp'] });
 * const result = await runTools({ model, tools: fs.tools, messages });
 * await fs.close();
 */
export async function mcpTools(source: McpServerSource, options: McpToolsOptions = {}): Promise<McpToolSet> {
  const set = new McpToolSetImpl(source, options);
  await set.start();
  return set;
}

type Open = () => Promise<OpenConnection>;

class McpToolSetImpl implements McpToolSet {
  readonly name: string;
  tools: Tool[] = [];

  private readonly open: Open | undefined;
  private readonly options: Required<Omit<McpToolsOptions, 'name' | 'onWarning'>> & Pick<McpToolsOptions, 'onWarning'>;
  private readonly limits: ConnectionLimits;
  private readonly disposeScratch: (() => void) | undefined;
  private connection: OpenConnection | undefined;
  private connecting: Promise<OpenConnection> | undefined;
  private dead = false;
  private closed = false;
  private restarts: number[] = [];
  private mcpNames = new Map<string, string>();
  private listeners = new Set<(tools: Tool[]) => void>();
  private refreshing: Promise<Tool[]> | undefined;
  private refreshAgain = false;
  private unwatch: (() => void) | undefined;

  constructor(source: McpServerSource, options: McpToolsOptions) {
    this.options = {
      namePrefix: options.namePrefix ?? '',
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      maxRestarts: options.maxRestarts ?? 3,
      restartWindowMs: options.restartWindowMs ?? 60_000,
      maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
      maxMalformedMessages: options.maxMalformedMessages ?? 100,
      maxResultChars: options.maxResultChars ?? 100_000,
      onWarning: options.onWarning,
    };
    this.limits = {
      connectTimeoutMs: this.options.connectTimeoutMs,
      maxMessageBytes: this.options.maxMessageBytes,
      maxMalformedMessages: this.options.maxMalformedMessages,
    };
    if (isClient(source)) {
      this.name = options.name ?? source.getServerVersion()?.name ?? 'client';
      const client = source;
      // A client passed in is the caller's: it is used as it is, never restarted or closed.
      this.connection = { client, close: () => Promise.resolve(), stderrTail: () => '', stopReason: () => undefined };
      this.open = undefined;
      this.disposeScratch = undefined;
    } else if ('url' in source) {
      const server: McpHttpServer = source;
      this.name = options.name ?? new URL(server.url).host;
      this.open = () => openHttpConnection(server, this.limits);
      this.disposeScratch = undefined;
    } else if ('command' in source) {
      const server: McpStdioServer = source;
      this.name = options.name ?? [server.command, ...(server.args ?? [])].join(' ');
      let cwd = server.cwd;
      if (cwd === undefined) {
        const scratch = scratchDirectory(server.isolation ?? 'bubblewrap');
        cwd = scratch.path;
        this.disposeScratch = scratch.dispose;
      } else {
        this.disposeScratch = undefined;
      }
      const workDir = cwd;
      this.open = () => openStdioConnection(server, workDir, this.limits);
    } else {
      throw new TypeError('mcpTools: pass an MCP SDK Client, { command, args } for a stdio server, or { url } for a streamable HTTP server.');
    }
  }

  async start(): Promise<void> {
    try {
      const connection = this.connection ?? (await this.connect());
      this.connection = connection;
      this.watch(connection);
      await this.listInto(connection);
    } catch (error) {
      const stderr = error instanceof OpenFailedError ? error.stderr : (this.connection?.stderrTail() ?? '');
      await this.close();
      if (McpConnectionError.isInstance(error)) throw error;
      throw new McpConnectionError({ serverName: this.name, problem: describe(error), stderr, cause: error });
    }
  }

  onToolsChanged(listener: (tools: Tool[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  refresh(): Promise<Tool[]> {
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        let tools: Tool[];
        do {
          this.refreshAgain = false;
          tools = await this.listInto(await this.live());
        } while (this.refreshAgain);
        return tools;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const connecting = this.connecting;
    const connection = this.connection;
    this.connection = undefined;
    this.unwatch?.();
    await connection?.close();
    await connecting?.then((late) => late.close()).catch(() => undefined);
    this.disposeScratch?.();
    this.listeners.clear();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async connect(): Promise<OpenConnection> {
    if (this.open === undefined) throw new Error('no way to reconnect');
    const connection = await this.open();
    if (this.closed) {
      await connection.close();
      throw new Error('closed');
    }
    return connection;
  }

  private watch(connection: OpenConnection): void {
    const { client } = connection;
    // Handlers a caller's client already had keep working, and come back on close().
    const previousClose = client.onclose;
    const previousError = client.onerror;
    client.onclose = () => {
      previousClose?.();
      if (this.connection === connection) this.dead = true;
    };
    client.onerror = (error) => {
      previousError?.(error);
      this.options.onWarning?.(`MCP server "${this.name}": ${error.message}`);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.refresh().catch((error: unknown) => this.options.onWarning?.(`MCP server "${this.name}": listing its changed tools failed: ${describe(error)}`));
    });
    this.unwatch = () => {
      client.onclose = previousClose;
      client.onerror = previousError;
      client.removeNotificationHandler(ToolListChangedNotificationSchema.shape.method.value);
    };
  }

  /** The live connection, restarted (within the budget) if the server died. */
  private live(): Promise<OpenConnection> {
    if (this.closed) return Promise.reject(new Error(`the connection to MCP server "${this.name}" was closed`));
    if (this.connection !== undefined && !this.dead) return Promise.resolve(this.connection);
    if (this.connecting !== undefined) return this.connecting;
    if (this.open === undefined) return Promise.reject(new Error(`the MCP client for "${this.name}" is closed and cannot be restarted here`));
    const now = Date.now();
    this.restarts = this.restarts.filter((at) => now - at < this.options.restartWindowMs);
    if (this.restarts.length >= this.options.maxRestarts) {
      return Promise.reject(
        new Error(`MCP server "${this.name}" stopped ${this.restarts.length} times within ${this.options.restartWindowMs / 1000} s and is not restarted again for now`),
      );
    }
    this.restarts.push(now);
    const previous = this.connection;
    this.connecting = (async () => {
      await previous?.close();
      const connection = await this.connect();
      this.connection = connection;
      this.dead = false;
      this.watch(connection);
      await this.listInto(connection);
      return connection;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async listInto(connection: OpenConnection): Promise<Tool[]> {
    const listed: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await connection.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.options.connectTimeoutMs });
      listed.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    const tools: Tool[] = [];
    const names = new Map<string, string>();
    for (const mcpTool of listed) {
      const name = exposedToolName(mcpTool.name, this.options.namePrefix);
      if (names.has(name)) {
        this.options.onWarning?.(`MCP server "${this.name}": tool "${mcpTool.name}" is left out: its name "${name}" is taken by "${names.get(name) ?? ''}".`);
        continue;
      }
      try {
        tools.push(this.toTool(mcpTool, name));
        names.set(name, mcpTool.name);
      } catch (error) {
        this.options.onWarning?.(`MCP server "${this.name}": tool "${mcpTool.name}" is left out: ${describe(error)}`);
      }
    }
    const changed = !sameTools(this.tools, tools);
    this.tools = tools;
    this.mcpNames = names;
    if (changed) for (const listener of this.listeners) listener(tools);
    return tools;
  }

  private toTool(mcpTool: McpTool, name: string): Tool {
    const description = mcpTool.description ?? mcpTool.title ?? mcpTool.annotations?.title;
    // A copy: core caches compiled validators by schema object, and the server's object is the SDK's.
    const parameters = structuredClone(mcpTool.inputSchema) as JsonSchema;
    return defineTool({
      name,
      ...(description === undefined ? {} : { description }),
      parameters,
      execute: (args: Record<string, unknown>, context: ToolExecutionContext) => this.call(mcpTool.name, name, args, context),
    });
  }

  private async call(mcpName: string, name: string, args: Record<string, unknown>, context: ToolExecutionContext, retried = false): Promise<ToolOutput> {
    if (this.mcpNames.get(name) !== mcpName) {
      return failure(`MCP server "${this.name}" no longer offers "${name}". Use one of the tools it lists now.`);
    }
    let connection: OpenConnection;
    try {
      connection = await this.live();
    } catch (error) {
      return failure(`MCP server "${this.name}" is not available: ${describe(error)}. Answer without "${name}".`);
    }
    try {
      const answer = await connection.client.callTool({ name: mcpName, arguments: args }, undefined, {
        signal: context.signal,
        timeout: this.options.callTimeoutMs,
      });
      return mapCallToolResult(answer, { maxMessageChars: this.options.maxResultChars });
    } catch (error) {
      // An HTTP server that lost the session (it restarted) answers 404 without running the
      // call: open a new session (a restart, within the budget) and send the call once more.
      if (!retried && error instanceof StreamableHTTPError && error.code === 404 && this.open !== undefined) {
        if (this.connection === connection) this.dead = true;
        return this.call(mcpName, name, args, context, true);
      }
      const stopReason = connection.stopReason();
      return mapCallError(error, {
        serverName: this.name,
        toolName: name,
        callTimeoutMs: this.options.callTimeoutMs,
        restarts: this.open !== undefined && !this.closed,
        closed: this.closed,
        ...(stopReason === undefined ? {} : { stopReason }),
      });
    }
  }
}

// Duck-typed rather than `instanceof`, so a client from another copy of the SDK is accepted.
function isClient(source: McpServerSource): source is Client {
  return typeof (source as Partial<Client>).callTool === 'function' && typeof (source as Partial<Client>).listTools === 'function';
}

function failure(message: string): ToolOutput {
  return toolOutput({ message, success: false, errorType: 'execution_error' });
}

function sameTools(a: Tool[], b: Tool[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Tool;
    const y = b[i] as Tool;
    if (x.name !== y.name || x.description !== y.description || JSON.stringify(x.inputSchema) !== JSON.stringify(y.inputSchema)) return false;
  }
  return true;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
