import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxedProcess } from '@toolwire/sandbox';
import { answerProblem, isAnswer } from './check-answer.ts';
import { LineFramer } from './line-framer.ts';
import { BROKEN_STREAM } from './request-scoped-fetch.ts';

/** How a `SandboxedStdioTransport` starts its server and bounds what it reads. */
export interface SandboxedStdioTransportOptions {
  /** Starts the server process (`spawnSandboxed(…)`); called once, by `start()`. */
  spawn: () => SandboxedProcess;
  /** One JSON-RPC message (a stdout line) larger than this ends the server. */
  maxMessageBytes: number;
  /** Lines that are not JSON-RPC messages tolerated before the server is ended. */
  maxMalformedMessages: number;
  /** Bytes of the server's stderr kept (the latest), for diagnostics. */
  stderrTailBytes: number;
  /** Bytes written to the server and not yet read by it past which it is ended (it does not read its input). */
  maxPendingInputBytes: number;
}

/**
 * The MCP stdio transport (newline-delimited JSON-RPC over a child's stdin and stdout)
 * over a sandboxed process, with the bounds the SDK's own transport lacks: a cap on one
 * message, a budget of malformed lines, stderr kept as a bounded tail (never inherited),
 * and the whole process group killed on close.
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly options: SandboxedStdioTransportOptions;
  private process: SandboxedProcess | undefined;
  private closed = false;
  private stopping = false;
  private malformed = 0;
  private stderr: Buffer[] = [];
  private stderrBytes = 0;
  private drained: Promise<void> | undefined;
  private releaseDrained: (() => void) | undefined;

  constructor(options: SandboxedStdioTransportOptions) {
    this.options = options;
  }

  start(): Promise<void> {
    if (this.process !== undefined || this.closed) return Promise.reject(new Error('SandboxedStdioTransport: already started.'));
    const child = this.options.spawn();
    this.process = child;
    const framer = new LineFramer(this.options.maxMessageBytes);
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.stopping) return;
      const { lines, overflow } = framer.push(chunk);
      for (const line of lines) this.receive(line);
      if (overflow) this.fail(new Error(`the MCP server sent a message larger than ${this.options.maxMessageBytes} bytes; it was stopped`));
    });
    child.stderr.on('data', (chunk: Buffer) => this.keepStderr(chunk));
    void child.exited.then(() => {
      this.releaseDrained?.();
      this.finish();
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.process;
    if (child === undefined || this.stopping) return Promise.reject(new Error('The MCP server is not running.'));
    const { stdin } = child;
    // A server that stops reading while it keeps sending requests (pings) would have our
    // answers pile up here without bound.
    if (stdin.writableLength > this.options.maxPendingInputBytes) {
      const error = new Error(
        `the MCP server does not read its input (${stdin.writableLength} bytes written to it are waiting, more than ${this.options.maxPendingInputBytes}); it was stopped`,
      );
      this.fail(error);
      return Promise.reject(error);
    }
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    // One wait for all the writes behind a full pipe: a listener per write would pile up.
    this.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        stdin.off('drain', done);
        this.drained = undefined;
        this.releaseDrained = undefined;
        resolve();
      };
      stdin.on('drain', done);
      // The process ending closes the connection; nothing more will drain (see start()).
      this.releaseDrained = done;
    });
    return this.drained;
  }

  async close(): Promise<void> {
    this.stopping = true;
    const child = this.process;
    if (child === undefined) {
      this.finish();
      return;
    }
    child.stdin.end();
    await child.kill();
    this.finish();
  }

  /** Why the transport stopped the server (a limit it broke), if it did. */
  stopReason: string | undefined;

  /** The latest bytes the server wrote to stderr (at most `stderrTailBytes`). */
  stderrTail(): string {
    return Buffer.concat(this.stderr).toString('utf8');
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      this.malformed++;
      if (this.malformed > this.options.maxMalformedMessages) {
        this.fail(new Error(`the MCP server sent more than ${this.options.maxMalformedMessages} lines that are not JSON-RPC messages; it was stopped`));
        return;
      }
      this.onerror?.(new Error('the MCP server sent a line that is not a JSON-RPC message; it was ignored'));
      // An answer of the wrong shape to a request in flight fails that request now, instead
      // of leaving it to wait for its whole timeout.
      const failed = failedAnswer(line);
      if (failed !== undefined) this.onmessage?.(failed);
      return;
    }
    this.onmessage?.(message);
  }

  private fail(error: Error): void {
    this.stopReason ??= error.message;
    this.onerror?.(error);
    void this.close();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private keepStderr(chunk: Buffer): void {
    const max = this.options.stderrTailBytes;
    if (max <= 0) return;
    this.stderr.push(chunk);
    this.stderrBytes += chunk.length;
    while (this.stderrBytes > max && this.stderr.length > 0) {
      const first = this.stderr[0] as Buffer;
      const excess = this.stderrBytes - max;
      if (first.length <= excess) {
        this.stderr.shift();
        this.stderrBytes -= first.length;
      } else {
        this.stderr[0] = first.subarray(excess);
        this.stderrBytes -= excess;
      }
    }
  }
}

/**
 * For a line that is JSON with the id of a request and a `result` or `error`, but not a
 * valid JSON-RPC answer (`"error": "x"`, `"jsonrpc": "1.0"`): an error answer for that id
 * saying so. Undefined for anything else (garbage, notifications): those are only ignored.
 */
function failedAnswer(line: string): JSONRPCMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isAnswer(parsed)) return undefined;
  const text = answerProblem(parsed) ?? 'its answer is not a JSON-RPC message';
  return { jsonrpc: '2.0', id: parsed.id as string | number, error: { code: -32603, message: text, data: { [BROKEN_STREAM]: text } } };
}
