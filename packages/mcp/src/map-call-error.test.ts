import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { mapCallError } from './map-call-error.ts';

const context = { serverName: 'files', toolName: 'read_file', callTimeoutMs: 5000, restarts: true };

describe('mapCallError', () => {
  it('maps a request timeout to a timeout output', () => {
    expect(mapCallError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), context)).toMatchObject({
      success: false,
      errorType: 'timeout',
      message: '"read_file" on MCP server "files" did not answer within 5000 ms. Try again later or answer without it.',
    });
  });

  it('says whether a server that stopped mid-call comes back', () => {
    const closed = new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
    expect(mapCallError(closed, context).message).toContain('it is restarted for the next call');
    expect(mapCallError(closed, { ...context, restarts: false }).message).toBe('MCP server "files" stopped while running "read_file"; answer without it.');
  });

  it("passes the server's own JSON-RPC error on, and anything else as a failure", () => {
    expect(mapCallError(new McpError(ErrorCode.InvalidParams, 'path must be inside /srv'), context)).toMatchObject({
      success: false,
      errorType: 'execution_error',
      message: 'MCP server "files" refused "read_file": MCP error -32602: path must be inside /srv',
    });
    expect(mapCallError(new TypeError('fetch failed'), context).message).toBe('"read_file" on MCP server "files" failed: fetch failed');
  });
});
