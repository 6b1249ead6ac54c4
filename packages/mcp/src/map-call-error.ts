import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolOutput } from '@toolwire/core';
import type { ToolOutput } from '@toolwire/core';
import { describeError } from './describe-error.ts';
import { BROKEN_STREAM } from './request-scoped-fetch.ts';

/** What `mapCallError` needs to word its message. */
export interface CallErrorContext {
  serverName: string;
  toolName: string;
  callTimeoutMs: number;
  /** Whether a stopped server is started again for the next call. */
  restarts: boolean;
  /** Whether the tool set was closed (by its owner) while the call ran. */
  closed?: boolean;
  /** Why the server was stopped (a limit it broke), when it was. */
  stopReason?: string;
  /**
   * What happened on our side: the call ran out of time (or was aborted), the connection
   * closed. A server may send the codes the SDK uses for these itself (-32000 is JSON-RPC's
   * generic "server error", and the SDK's "connection closed"): those are its own errors.
   */
  local: { timedOut: boolean; connectionClosed: boolean };
}

/**
 * The failed tool output for an error `callTool` threw: a timeout, a server that stopped
 * mid-call, a JSON-RPC error from the server (its message included, for the model to act
 * on), or anything else (a transport error, a result of the wrong shape).
 */
export function mapCallError(error: unknown, context: CallErrorContext): ToolOutput {
  const { serverName, toolName } = context;
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number) && context.local.timedOut) {
    return toolOutput({
      message: `"${toolName}" on MCP server "${serverName}" did not answer within ${context.callTimeoutMs} ms. Try again later or answer without it.`,
      success: false,
      errorType: 'timeout',
    });
  }
  if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number) && context.local.connectionClosed) {
    if (context.closed === true) return failure(`The connection to MCP server "${serverName}" was closed while "${toolName}" ran; answer without it.`);
    const next = context.restarts ? 'it is restarted for the next call. Try again once, or answer without it.' : 'answer without it.';
    const why = context.stopReason === undefined ? '' : ` (${context.stopReason})`;
    return failure(`MCP server "${serverName}" stopped while running "${toolName}"${why}; ${next}`);
  }
  if (error instanceof McpError) {
    // The error answer written for a response stream that broke: ours, not the server's refusal.
    const broken: unknown = (error.data as Record<string, unknown> | undefined)?.[BROKEN_STREAM];
    if (typeof broken === 'string') return failure(`"${toolName}" on MCP server "${serverName}" failed: ${cut(broken)}`);
    return failure(`MCP server "${serverName}" refused "${toolName}": ${cut(error.message)}`);
  }
  return failure(`"${toolName}" on MCP server "${serverName}" failed: ${cut(describeError(error))}`);
}

// The server's own words (a JSON-RPC error message, an HTTP error page) can be megabytes.
const MAX_SERVER_TEXT_CHARS = 2000;

function cut(text: string): string {
  if (text.length <= MAX_SERVER_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_SERVER_TEXT_CHARS)}… [${text.length - MAX_SERVER_TEXT_CHARS} more characters cut]`;
}

function failure(message: string): ToolOutput {
  return toolOutput({ message, success: false, errorType: 'execution_error' });
}
