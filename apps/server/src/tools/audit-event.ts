/** One server-tool execution, as written to the audit log (never the arguments' values). */
export interface ToolAuditEvent {
  type: 'tool-execution';
  tool: string;
  toolCallId: string;
  /** The API key id that asked, or `anonymous` on an open loopback server. */
  principal: string;
  /** The id of the HTTP request that led to the call (`x-request-id`). */
  requestId?: string;
  outcome: 'success' | 'error' | 'timeout' | 'aborted';
  durationMs: number;
  /** Names of the arguments the model passed. */
  argumentNames: string[];
  /** How long the call waited for a free execution slot. */
  queuedMs: number;
  error?: string;
}
