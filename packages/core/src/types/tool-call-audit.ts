import type { ToolErrorType } from './tool-result.ts';

/**
 * What `executeToolCall` reports about one answered call, for audit logs. Never the
 * arguments' values: only their names.
 */
export interface ToolCallAudit {
  toolCallId: string;
  /** The tool's name; a name nobody registered or offered (the model invented it) is cut to 64 characters, `…` marking the cut. */
  toolName: string;
  /** Who asked, as passed to `executeToolCall`. */
  principal?: string;
  /** `success`, the failed result's error type, or `aborted` when the caller's signal stopped the call. */
  outcome: 'success' | ToolErrorType | 'aborted';
  /** Names of the arguments the model passed. */
  argumentNames: string[];
  /** Time spent waiting for a concurrency slot, in ms. */
  queuedMs: number;
  /** Time from getting the slot to the answer, in ms (0 when refused before running). */
  durationMs: number;
  /** The result's message, for failures. */
  error?: string;
}
