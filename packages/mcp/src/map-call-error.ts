import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolOutput } from '@toolwire/core';
import type { ToolOutput } from '@toolwire/core';

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
}

/**
 * The failed tool output for an error `callTool` threw: a timeout, a server that stopped
 * mid-call, a JSON-RPC error from the server (its message included, for the model to act
 * on), or anything else (a transport error, a result of the wrong shape).
 */
export function mapCallError(error: unknown, context: CallErrorContext): ToolOutput {
  const { serverName, toolName } = context;
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
    return toolOutput({
      message: `"${toolName}" on MCP server "${serverName}" did not answer within ${context.callTimeoutMs} ms. Try again later or answer without it.`,
      success: false,
      errorType: 'timeout',
    });
  }
  if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)) {
    if (context.closed === true) return failure(`The connection to MCP server "${serverName}" was closed while "${toolName}" ran; answer without it.`);
    const next = context.restarts ? 'it is restarted for the next call. Try again once, or answer without it.' : 'answer without it.';
    const why = context.stopReason === undefined ? '' : ` (${context.stopReason})`;
    return failure(`MCP server "${serverName}" stopped while running "${toolName}"${why}; ${next}`);
  }
  if (error instanceof McpError) return failure(`MCP server "${serverName}" refused "${toolName}": ${error.message}`);
  return failure(`"${toolName}" on MCP server "${serverName}" failed: ${error instanceof Error ? error.message : String(error)}`);
}

function failure(message: string): ToolOutput {
  return toolOutput({ message, success: false, errorType: 'execution_error' });
}
