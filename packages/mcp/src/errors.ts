import { ToolwireError } from '@toolwire/core';

/** An MCP server could not be started, initialized or asked for its tools. */
export class McpConnectionError extends ToolwireError {
  static override readonly errorName = 'McpConnectionError';
  /** The server's label (its command or URL). */
  readonly serverName: string;
  /** The last bytes the server wrote to stderr, for a stdio server (may be empty). */
  readonly stderr: string;
  constructor(options: { serverName: string; problem: string; stderr?: string; cause?: unknown }) {
    const stderr = options.stderr ?? '';
    const tail = stderr.trim() === '' ? '' : ` Its stderr ends with: ${stderr.trim().slice(-500)}`;
    super(`MCP server "${options.serverName}" is not usable: ${options.problem}.${tail}`, { cause: options.cause });
    this.serverName = options.serverName;
    this.stderr = stderr;
  }
  static override isInstance(error: unknown): error is McpConnectionError {
    return this.hasMarker(error, McpConnectionError.errorName);
  }
}
