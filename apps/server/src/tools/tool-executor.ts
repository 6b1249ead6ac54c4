import type { ToolCall, ToolResult } from '@toolwire/core';
import type { ToolAuditEvent } from './audit-event.ts';
import { createSemaphore } from './semaphore.ts';
import type { ServerTool } from './server-tool.ts';

/** Options of `createToolExecutor`. */
export interface ToolExecutorOptions {
  /** Executions running at once across all requests (default 10). */
  maxConcurrent?: number;
  /** Per-execution timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Receives one event per execution. */
  audit: (event: ToolAuditEvent) => void;
}

/** What one execution needs. */
export interface ExecuteOptions {
  tool: ServerTool;
  call: ToolCall;
  principal: string;
  /** The request's signal: a client that disconnects stops its running tools. */
  signal: AbortSignal;
  /** For the audit event. */
  requestId?: string;
}

/** Runs server tools with a concurrency cap, a timeout and an audit event each. */
export interface ToolExecutor {
  execute(options: ExecuteOptions): Promise<ToolResult>;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

/** Creates the executor shared by every request of one server. */
export function createToolExecutor(options: ToolExecutorOptions): ToolExecutor {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const slots = createSemaphore(options.maxConcurrent ?? 10);
  return {
    async execute({ tool, call, principal, signal, requestId }) {
      const queuedAt = performance.now();
      const base = {
        type: 'tool-execution',
        tool: tool.name,
        toolCallId: call.id,
        principal,
        ...(requestId === undefined ? {} : { requestId }),
        argumentNames: Object.keys(call.arguments),
      } as const;
      const fail = (type: 'execution_error' | 'timeout', message: string): ToolResult => ({
        toolCallId: call.id,
        name: call.name,
        success: false,
        message,
        error: { type, message },
      });
      const release = await slots.acquire(signal);
      const startedAt = performance.now();
      const queuedMs = startedAt - queuedAt;
      const timeout = AbortSignal.timeout(timeoutMs);
      const toolSignal = AbortSignal.any([signal, timeout]);
      try {
        const stop = new Promise<never>((_, reject) => {
          const onAbort = (): void => reject(toolSignal.reason as Error);
          if (toolSignal.aborted) onAbort();
          else toolSignal.addEventListener('abort', onAbort, { once: true });
        });
        stop.catch(() => undefined);
        const value = await Promise.race([tool.execute(call.arguments, { toolCallId: call.id, signal: toolSignal, principal }), stop]);
        options.audit({ ...base, outcome: 'success', durationMs: performance.now() - startedAt, queuedMs });
        const result: ToolResult = { toolCallId: call.id, name: call.name, success: true, message: describe(value) };
        if (value !== undefined) result.value = value;
        return result;
      } catch (error) {
        const durationMs = performance.now() - startedAt;
        if (signal.aborted) {
          options.audit({ ...base, outcome: 'aborted', durationMs, queuedMs });
          throw signal.reason;
        }
        if (timeout.aborted) {
          options.audit({ ...base, outcome: 'timeout', durationMs, queuedMs });
          return fail('timeout', `The tool "${tool.name}" did not finish within ${timeoutMs} ms. Try a simpler request.`);
        }
        const message = error instanceof Error ? error.message : String(error);
        options.audit({ ...base, outcome: 'error', durationMs, queuedMs, error: message });
        return fail('execution_error', message);
      } finally {
        release();
      }
    },
  };
}
