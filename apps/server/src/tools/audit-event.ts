import type { ToolCallAudit, ToolErrorType } from '@toolwire/core';

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
  /** Why a call failed (`validation_error`, `permission_denied`, …) when `outcome` is `error` or `timeout`. */
  errorType?: ToolErrorType;
  /** Time running, after waiting for a slot (0 when refused before running). */
  durationMs: number;
  /** Names of the arguments the model passed. */
  argumentNames: string[];
  /** How long the call waited for a free execution slot. */
  queuedMs: number;
  error?: string;
}

/** Core's report of one answered call as the gateway's audit event. */
export function toToolAuditEvent(audit: ToolCallAudit, context: { principal: string; requestId?: string }): ToolAuditEvent {
  const event: ToolAuditEvent = {
    type: 'tool-execution',
    tool: audit.toolName,
    toolCallId: audit.toolCallId,
    principal: context.principal,
    outcome: audit.outcome === 'success' || audit.outcome === 'aborted' ? audit.outcome : audit.outcome === 'timeout' ? 'timeout' : 'error',
    durationMs: audit.durationMs,
    argumentNames: audit.argumentNames,
    queuedMs: audit.queuedMs,
  };
  if (context.requestId !== undefined) event.requestId = context.requestId;
  if (audit.outcome !== 'success' && audit.outcome !== 'aborted') event.errorType = audit.outcome;
  if (audit.error !== undefined) event.error = audit.error;
  return event;
}
