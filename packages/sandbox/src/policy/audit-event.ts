/** What one sandboxed execution ended as. */
export type AuditOutcome =
  | 'ok'
  | 'error'
  | 'timeout'
  | 'memory'
  | 'output-limit'
  | 'crashed'
  | 'aborted'
  | 'nonzero-exit'
  | 'rejected';

/**
 * One execution (JS or shell), for the audit log. It carries a hash of the arguments,
 * never the arguments, their secrets or the environment.
 */
export interface AuditEvent {
  kind: 'js' | 'shell';
  /** The tool name (`shell`, a sandboxed tool's name) or `js` / `command` for direct calls. */
  tool: string;
  principal?: string;
  /** SHA-256 (hex) of the arguments' canonical JSON. */
  argumentsHash: string;
  /** ISO time the execution started. */
  startedAt: string;
  durationMs: number;
  outcome: AuditOutcome;
  /** Limits that were reached: `timeout`, `memory`, `output`, `arguments-size`, `concurrency`, … */
  limitsHit: string[];
  /** For shell commands: the exit code, when the process exited. */
  exitCode?: number | null;
  /** For refusals: why. */
  reason?: string;
}

/** Receives audit events; an exception it throws is swallowed, never failing the execution. */
export type AuditHandler = (event: AuditEvent) => void;

/** Delivers `event` to `handler` if there is one, shielding the caller from handler errors. */
export function emitAudit(handler: AuditHandler | undefined, event: AuditEvent): void {
  if (handler === undefined) return;
  try {
    handler(event);
  } catch {
    // An audit sink that fails must not change the outcome of the execution.
  }
}
