import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createGuardedStreamFetch, getSandboxSupport, spawnSandboxed } from '@toolwire/sandbox';
import { describeError } from './describe-error.ts';
import type { McpHttpServer, McpStdioServer } from './mcp-server-source.ts';
import { requestScopedFetch } from './request-scoped-fetch.ts';
import { SandboxedStdioTransport } from './sandboxed-stdio-transport.ts';

/** One live client and how to end it. */
export interface OpenConnection {
  client: Client;
  /** Ends the client, its transport and (for stdio) the whole process group. */
  close(): Promise<void>;
  /** The last bytes of the server's stderr (stdio only). */
  stderrTail(): string;
  /** Why the connection stopped the server (a limit it broke), if it did (stdio only). */
  stopReason(): string | undefined;
}

/** Limits every connection shares. */
export interface ConnectionLimits {
  connectTimeoutMs: number;
  callTimeoutMs: number;
  maxMessageBytes: number;
  maxMalformedMessages: number;
}

/** A connection that failed to open, with what the server wrote to stderr before it did. */
export class OpenFailedError extends Error {
  readonly stderr: string;
  constructor(cause: unknown, stderr: string) {
    super(describeError(cause), { cause });
    this.stderr = stderr;
  }
}

const CLIENT_INFO = { name: 'toolwire', version: '0.1.0' };
const STDERR_TAIL_BYTES = 4096;
const DEFAULT_MEMORY_MB = 2048;
const HEAD_TIMEOUT_MARGIN_MS = 1000;
// The server's event stream may be (re)opened this often per window (the SDK's own backoff starts at 1 s).
const MAX_STREAM_OPENS = 10;
const STREAM_WINDOW_MS = 60_000;
// What may wait in the server's stdin (written, not read yet) before it counts as not reading.
const MIN_PENDING_INPUT_BYTES = 1024 * 1024;

/**
 * The writable directory a stdio server gets when none is given; removed by `dispose`.
 * Under bubblewrap it belongs to the uid the sandbox runs processes as where that is not
 * ours (root without a writable pids cgroup: 65534), which could not write it otherwise.
 */
export function scratchDirectory(isolation: 'bubblewrap' | 'none'): { path: string; dispose: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'toolwire-mcp-'));
  const dispose = () => rmSync(path, { recursive: true, force: true });
  const owner = isolation === 'bubblewrap' ? getSandboxSupport().hostUid : undefined;
  try {
    if (owner !== undefined) chownSync(path, owner, owner);
  } catch (error) {
    dispose();
    throw error;
  }
  return { path, dispose };
}

/** Starts a sandboxed stdio server and initializes a client over it. */
export async function openStdioConnection(server: McpStdioServer, cwd: string, limits: ConnectionLimits): Promise<OpenConnection> {
  const transport = new SandboxedStdioTransport({
    spawn: () =>
      spawnSandboxed({
        command: [server.command, ...(server.args ?? [])],
        cwd,
        ...(server.env === undefined ? {} : { env: server.env }),
        ...(server.readOnlyPaths === undefined ? {} : { readOnlyPaths: server.readOnlyPaths }),
        network: server.network ?? false,
        isolation: server.isolation ?? 'bubblewrap',
        limits: { memoryMb: DEFAULT_MEMORY_MB, ...server.limits },
        auditTool: 'mcp-server',
      }),
    maxMessageBytes: limits.maxMessageBytes,
    maxMalformedMessages: limits.maxMalformedMessages,
    stderrTailBytes: STDERR_TAIL_BYTES,
    maxPendingInputBytes: Math.max(MIN_PENDING_INPUT_BYTES, 2 * limits.maxMessageBytes),
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const close = async () => {
    await client.close().catch(() => undefined);
    await transport.close();
  };
  try {
    await client.connect(transport, { timeout: limits.connectTimeoutMs });
  } catch (error) {
    await close();
    const reason = transport.stopReason;
    throw new OpenFailedError(reason === undefined ? error : new Error(`${describeError(error)} (${reason})`, { cause: error }), transport.stderrTail());
  }
  return { client, close, stderrTail: () => transport.stderrTail(), stopReason: () => transport.stopReason };
}

/** Connects a client to a streamable HTTP server through the guarded fetch. */
export async function openHttpConnection(server: McpHttpServer, limits: ConnectionLimits, onWarning: (message: string) => void): Promise<OpenConnection> {
  const url = new URL(server.url);
  const guardedFetch = createGuardedStreamFetch({
    allowedDomains: server.allowedDomains ?? [url.hostname],
    allowPrivateNetwork: server.allowPrivateNetwork ?? false,
    maxResponseBytes: server.maxResponseBytes ?? 8 * 1024 * 1024,
    // A last bound on a response head: a tool call's head may come as late as its answer
    // (a server answering with JSON), and each request's own deadline aborts it sooner.
    timeoutMs: Math.max(limits.connectTimeoutMs, limits.callTimeoutMs) + HEAD_TIMEOUT_MARGIN_MS,
  });
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: requestScopedFetch(guardedFetch, { maxStreamOpens: MAX_STREAM_OPENS, streamWindowMs: STREAM_WINDOW_MS, onWarning }),
    ...(server.headers === undefined ? {} : { requestInit: { headers: server.headers } }),
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const close = async () => {
    // Tell the server the session is over; a server that cannot be reached is not waited for.
    await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    await client.close().catch(() => undefined);
  };
  try {
    await client.connect(transport, { timeout: limits.connectTimeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return { client, close, stderrTail: () => '', stopReason: () => undefined };
}
