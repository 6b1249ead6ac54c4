import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, toolOutput } from '@toolwire/core';
import type { JsonSchema, Tool, ToolExecutionContext, ToolOutput } from '@toolwire/core';
import { checkCallToolResult } from './check-call-tool-result.ts';
import { checkListedTool } from './check-listed-tool.ts';
import { checkCount, checkDuration, MAX_MESSAGE_BYTES_LIMIT } from './check-options.ts';
import { describeError } from './describe-error.ts';
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
  /** Tools of one server past this many are left out (default 1 000); listing also stops there. */
  maxTools?: number;
  /** A tool description longer than this is cut (default 10 000 characters): it is sent with every model request. */
  maxDescriptionChars?: number;
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
// Tools compiled between two turns of the event loop (a compile takes about 0.1 ms).
const COMPILE_BATCH = 32;
// Tools left out of one listing reported one by one; the rest are counted.
const MAX_LEFT_OUT_WARNINGS = 10;
const MAX_WARNING_CHARS = 1000;
// Warnings about what a server sent (stray answers, unknown progress tokens), per window.
const MAX_PROTOCOL_WARNINGS = 20;
const PROTOCOL_WARNING_WINDOW_MS = 10_000;
// tools/list_changed is followed at most this often.
const LIST_CHANGED_INTERVAL_MS = 1000;
// What a server's own error text may add to a message (an HTTP error page can be 8 MiB).
const MAX_PROBLEM_CHARS = 2000;

/** A listed tool as a core tool, with what it was made from (reused while that is unchanged). */
interface KnownTool {
  key: string;
  tool: Tool;
  checkOutput: ((value: Record<string, unknown>) => string | undefined) | undefined;
}

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
  private known = new Map<string, KnownTool>();
  private noise = { since: 0, count: 0, dropped: 0 };
  private refreshTimer: NodeJS.Timeout | undefined;
  private lastListing = 0;
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
      maxTools: options.maxTools ?? 1000,
      maxDescriptionChars: options.maxDescriptionChars ?? 10_000,
      onWarning: options.onWarning,
    };
    checkDuration('callTimeoutMs', this.options.callTimeoutMs);
    checkDuration('connectTimeoutMs', this.options.connectTimeoutMs);
    checkDuration('restartWindowMs', this.options.restartWindowMs);
    checkCount('maxRestarts', this.options.maxRestarts, 0, Number.MAX_SAFE_INTEGER);
    checkCount('maxMessageBytes', this.options.maxMessageBytes, 1024, MAX_MESSAGE_BYTES_LIMIT);
    checkCount('maxMalformedMessages', this.options.maxMalformedMessages, 0, Number.MAX_SAFE_INTEGER);
    checkCount('maxResultChars', this.options.maxResultChars, 1, Number.MAX_SAFE_INTEGER);
    checkCount('maxTools', this.options.maxTools, 1, Number.MAX_SAFE_INTEGER);
    checkCount('maxDescriptionChars', this.options.maxDescriptionChars, 1, Number.MAX_SAFE_INTEGER);
    this.limits = {
      connectTimeoutMs: this.options.connectTimeoutMs,
      callTimeoutMs: this.options.callTimeoutMs,
      maxMessageBytes: this.options.maxMessageBytes,
      maxMalformedMessages: this.options.maxMalformedMessages,
    };
    if (isClient(source)) {
      this.name = options.name ?? defaultLabel(source.getServerVersion()?.name ?? 'client');
      const client = source;
      // A client passed in is the caller's: it is used as it is, never restarted or closed.
      this.connection = { client, close: () => Promise.resolve(), stderrTail: () => '', stopReason: () => undefined };
      this.open = undefined;
      this.disposeScratch = undefined;
    } else if ('url' in source) {
      const server: McpHttpServer = source;
      this.name = options.name ?? new URL(server.url).host;
      this.open = () => openHttpConnection(server, this.limits, (message) => this.warn(message));
      this.disposeScratch = undefined;
    } else if ('command' in source) {
      const server: McpStdioServer = source;
      this.name = options.name ?? defaultLabel([server.command, ...(server.args ?? [])].join(' '));
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
      // A limit the server broke while being listed (a page over maxMessageBytes) says more than "Connection closed".
      const stopReason = error instanceof OpenFailedError ? undefined : this.connection?.stopReason();
      await this.close();
      if (McpConnectionError.isInstance(error)) throw error;
      // The SDK's own words for its timeout ("MCP error -32001: Request timed out") name no limit to raise.
      const timedOut = isTimeout(error instanceof OpenFailedError ? error.cause : error);
      const said = timedOut ? `it timed out: no answer within ${this.options.connectTimeoutMs} ms (connectTimeoutMs)` : describe(error);
      const problem = stopReason === undefined ? said : `${said} (${stopReason})`;
      throw new McpConnectionError({ serverName: this.name, problem: cutText(problem, MAX_PROBLEM_CHARS), stderr, cause: error });
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
    clearTimeout(this.refreshTimer);
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
      this.protocolWarning(describeError(error));
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshSoon());
    this.unwatch = () => {
      client.onclose = previousClose;
      client.onerror = previousError;
      client.removeNotificationHandler(ToolListChangedNotificationSchema.shape.method.value);
    };
  }

  /**
   * A refresh for `tools/list_changed`, at most one per `LIST_CHANGED_INTERVAL_MS`: a server
   * can send the notification every millisecond, and each one would list its tools again.
   */
  private refreshSoon(): void {
    if (this.closed || this.refreshTimer !== undefined) return;
    const wait = Math.max(0, this.lastListing + LIST_CHANGED_INTERVAL_MS - Date.now());
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.refresh().catch((error: unknown) => this.warn(`listing its changed tools failed: ${describe(error)}`));
    }, wait);
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
    const listed = await this.listAll(connection);
    const tools: Tool[] = [];
    const names = new Map<string, string>();
    const known = new Map<string, KnownTool>();
    for (let i = 0; i < listed.length; i++) {
      // Compiling schemas is synchronous: the event loop gets a turn between batches.
      if (i > 0 && i % COMPILE_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
      const mcpTool = listed[i] as McpTool;
      const name = exposedToolName(mcpTool.name, this.options.namePrefix);
      if (names.has(name)) {
        this.warn(`tool "${short(mcpTool.name)}" is left out: its name "${short(name)}" is taken by "${short(names.get(name) ?? '')}".`);
        continue;
      }
      try {
        const key = JSON.stringify(mcpTool);
        const previous = this.known.get(mcpTool.name);
        const entry = previous !== undefined && previous.key === key ? previous : { key, ...this.toTool(mcpTool, name) };
        tools.push(entry.tool);
        names.set(name, mcpTool.name);
        known.set(mcpTool.name, entry);
      } catch (error) {
        this.warn(`tool "${short(mcpTool.name)}" is left out: ${describe(error)}`);
      }
    }
    const changed = !sameTools(this.tools, tools);
    this.tools = tools;
    this.mcpNames = names;
    this.known = known;
    if (changed) for (const listener of this.listeners) listener(tools);
    return tools;
  }

  /** Every page of `tools/list`, within `connectTimeoutMs` in all, at most `maxTools` tools, each checked on its own. */
  private async listAll(connection: OpenConnection): Promise<McpTool[]> {
    const { connectTimeoutMs, maxTools } = this.options;
    const started = Date.now();
    this.lastListing = started;
    const listed: McpTool[] = [];
    const cursors = new Set<string>();
    let leftOut = 0;
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page === MAX_TOOL_PAGES) {
        this.warn(`its tool list goes on past ${MAX_TOOL_PAGES} pages; the ${listed.length} tools of the first ${MAX_TOOL_PAGES} are used.`);
        break;
      }
      const remaining = connectTimeoutMs - (Date.now() - started);
      if (remaining <= 0) throw new Error(`listing its tools took longer than ${connectTimeoutMs} ms (connectTimeoutMs)`);
      // A loose schema here: each tool is checked on its own below.
      const result = await connection.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: remaining });
      const { tools, nextCursor } = result;
      if (!Array.isArray(tools)) throw new Error('its tools/list answer has no "tools" list');
      for (const entry of tools) {
        if (listed.length >= maxTools) {
          this.warn(`it lists more than ${maxTools} tools (maxTools); the first ${maxTools} are used, the rest left out.`);
          return listed;
        }
        const checked = checkListedTool(entry);
        if (checked.ok) listed.push(checked.tool);
        else if (++leftOut <= MAX_LEFT_OUT_WARNINGS) this.warn(`tool "${short(checked.name)}" is left out: ${checked.problem}.`);
      }
      if (nextCursor === undefined) break;
      if (typeof nextCursor !== 'string' || cursors.has(nextCursor)) {
        this.warn(`its tool list pages loop (cursor ${short(JSON.stringify(nextCursor) ?? '')} came back); the ${listed.length} tools listed so far are used.`);
        break;
      }
      cursors.add(nextCursor);
      cursor = nextCursor;
    }
    if (leftOut > MAX_LEFT_OUT_WARNINGS) this.warn(`${leftOut - MAX_LEFT_OUT_WARNINGS} more tools are left out as not valid.`);
    return listed;
  }

  private toTool(mcpTool: McpTool, name: string): Omit<KnownTool, 'key'> {
    let description = mcpTool.description ?? mcpTool.title ?? mcpTool.annotations?.title;
    if (description !== undefined && description.length > this.options.maxDescriptionChars) {
      this.warn(`the description of tool "${short(mcpTool.name)}" is cut to ${this.options.maxDescriptionChars} of its ${description.length} characters (maxDescriptionChars).`);
      description = `${description.slice(0, this.options.maxDescriptionChars)}…`;
    }
    // A copy: core caches compiled validators by schema object, and the server's object is the SDK's.
    const parameters = structuredClone(mcpTool.inputSchema) as JsonSchema;
    const tool = defineTool({
      name,
      ...(description === undefined ? {} : { description }),
      parameters,
      execute: (args: Record<string, unknown>, context: ToolExecutionContext) => this.call(mcpTool.name, name, args, context),
    });
    return { tool, checkOutput: this.outputCheck(mcpTool) };
  }

  /** Checks `structuredContent` against the tool's `outputSchema`, compiled with core's bounds (the SDK's compile has none). */
  private outputCheck(mcpTool: McpTool): KnownTool['checkOutput'] {
    if (mcpTool.outputSchema === undefined) return undefined;
    try {
      const output = defineTool({ name: 'output', parameters: structuredClone(mcpTool.outputSchema) as JsonSchema });
      return (value) => {
        const result = output.validate(value);
        return result.success ? undefined : result.message;
      };
    } catch (error) {
      this.warn(`the outputSchema of tool "${short(mcpTool.name)}" is ignored: ${describe(error)}`);
      return undefined;
    }
  }

  /** A warning about what the server sent, at most `MAX_PROTOCOL_WARNINGS` per window: a server can send thousands a second. */
  private protocolWarning(message: string): void {
    const now = Date.now();
    if (now - this.noise.since >= PROTOCOL_WARNING_WINDOW_MS) {
      const { dropped } = this.noise;
      this.noise = { since: now, count: 0, dropped: 0 };
      if (dropped > 0) this.warn(`${dropped} more protocol warnings in ${PROTOCOL_WARNING_WINDOW_MS / 1000} s were not reported.`);
    }
    if (++this.noise.count > MAX_PROTOCOL_WARNINGS) this.noise.dropped++;
    else this.warn(message);
  }

  private warn(message: string): void {
    // Protocol errors quote what the server sent, which may be megabytes.
    this.options.onWarning?.(`MCP server "${this.name}": ${cutText(message, MAX_WARNING_CHARS)}`);
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
    const started = Date.now();
    // The SDK listens on the signal it is given and never stops: a signal of the caller's
    // that outlives the call (one for a whole run) would collect a listener per call, and
    // aborting it would cancel every call already answered. It gets one of its own.
    const own = new AbortController();
    const onAbort = () => own.abort(context.signal.reason);
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      // A loose schema: the result is checked by checkCallToolResult, which stops at the first problem.
      const raw = await connection.client.request({ method: 'tools/call', params: { name: mcpName, arguments: args } }, ResultSchema, {
        signal: own.signal,
        timeout: this.options.callTimeoutMs,
      });
      const checked = checkCallToolResult(raw);
      if (!checked.ok) return failure(`"${name}" on MCP server "${this.name}" answered with a result that is not valid MCP: ${checked.problem}. Answer without it.`);
      const { answer } = checked;
      const structured = answer.structuredContent;
      const problem = structured === undefined || answer.isError === true ? undefined : this.known.get(mcpName)?.checkOutput?.(structured);
      if (problem !== undefined) return failure(`"${name}" on MCP server "${this.name}" answered with structuredContent that does not match its outputSchema: ${problem}`);
      return mapCallToolResult(answer, { maxMessageChars: this.options.maxResultChars });
    } catch (error) {
      // An HTTP server that lost the session (it restarted) answers 404 without running the
      // call: open a new session (a restart, within the budget) and send the call once more.
      if (!retried && error instanceof StreamableHTTPError && error.code === 404 && this.open !== undefined) {
        if (this.connection === connection) this.dead = true;
        return await this.call(mcpName, name, args, context, true);
      }
      const stopReason = connection.stopReason();
      return mapCallError(error, {
        serverName: this.name,
        toolName: name,
        callTimeoutMs: this.options.callTimeoutMs,
        restarts: this.open !== undefined && !this.closed,
        closed: this.closed,
        ...(stopReason === undefined ? {} : { stopReason }),
        local: {
          timedOut: context.signal.aborted || Date.now() - started >= this.options.callTimeoutMs,
          // The SDK drops its transport when the connection closes.
          connectionClosed: connection.client.transport === undefined,
        },
      });
    } finally {
      context.signal.removeEventListener('abort', onAbort);
    }
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number);
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

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
}

// A default label goes into every message and warning: a command line can carry a whole
// configuration, and a client's server names itself.
const MAX_LABEL_CHARS = 120;

function defaultLabel(text: string): string {
  return text.length <= MAX_LABEL_CHARS ? text : `${text.slice(0, MAX_LABEL_CHARS)}…`;
}

/** A server-chosen name, cut for a message. */
function short(text: string): string {
  return text.length <= 100 ? text : `${text.slice(0, 100)}…`;
}

function describe(error: unknown): string {
  return describeError(error);
}
