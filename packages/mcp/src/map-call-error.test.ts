import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { mapCallError } from './map-call-error.ts';

const context = { serverName: 'files', toolName: 'read_file', callTimeoutMs: 5000, restarts: true, local: { timedOut: true, connectionClosed: true } };

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

  it("takes a server's own -32000 and -32001 errors for what they are, not a stop or a timeout of ours", () => {
    const local = { timedOut: false, connectionClosed: false };
    // -32000 is JSON-RPC's generic "server error" (and the SDK's "connection closed").
    expect(mapCallError(new McpError(-32000, 'quota exceeded, retry in an hour'), { ...context, local })).toMatchObject({
      errorType: 'execution_error',
      message: 'MCP server "files" refused "read_file": MCP error -32000: quota exceeded, retry in an hour',
    });
    expect(mapCallError(new McpError(-32001, 'upstream timed out'), { ...context, local })).toMatchObject({ errorType: 'execution_error' });
  });

  it("cuts the server's own words", () => {
    const message = mapCallError(new McpError(-32603, 'x'.repeat(3_000_000)), context).message;
    expect(message.length).toBeLessThan(2200);
    expect(message).toContain('more characters cut');
  });
});
