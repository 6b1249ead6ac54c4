import type { ToolRegistry } from './tool-registry.ts';
import { KNOWN_TOOL, traceToolExecution, UNKNOWN_TOOL } from './tracing.ts';
import { boundToolResult, DEFAULT_MAX_RESULT_CHARS, toolFailure, toolSuccess } from './tool-results.ts';
import type { Message } from './types/message.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolCallAudit } from './types/tool-call-audit.ts';
import type { ToolResult } from './types/tool-result.ts';
import { foldUnknownToolName } from './unknown-tool-name.ts';

/** Options of `executeToolCall`. */
export interface ExecuteToolCallOptions {
  /** Where the tool, permissions, rate limits and the concurrency limit come from. */
  registry: ToolRegistry;
  /** Who asks (an API key id, a user): checked against permissions and rate limits. */
  principal?: string;
  /** Aborting it stops the tool (its `signal` fires) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Time allowed for the call, from the moment `executeToolCall` starts (waiting for a
   * concurrency slot included). When it runs out, the tool's signal fires and the result
   * is a `timeout`, even if the tool ignores its signal.
   */
  timeoutMs?: number;
  /** The conversation so far, passed on to the tool's context. */
  messages?: readonly Message[];
  /** Told about the call once it is answered (or aborted): for audit logs. */
  onAudit?: (audit: ToolCallAudit) => void;
  /**
   * The most characters of the result's `message` (what the model reads); a longer one is
   * cut with a note saying so. `value` is kept whole. Default 1,000,000.
   */
  maxResultChars?: number;
}

/** When the call got its slot, for the audit's queue time. */
interface Timing {
  startedAt: number;
  slotAt: number | undefined;
}

type Outcome = { kind: 'returned'; value: unknown } | { kind: 'threw'; error: unknown } | { kind: 'stopped' };

/**
 * Runs one tool call and returns its `ToolResult`. Tool failures never throw: they come
 * back as results the model can read (`unknown_tool`, `permission_denied`, `rate_limited`,
 * `validation_error`, `execution_error`, `timeout`, and `unsupported` for provider-executed
 * calls and tools without `execute`). It rejects only when `signal` aborts.
 *
 * A concurrency slot is held until the tool's promise settles, even after a timeout, so
 * `maxConcurrency` counts tools that really still run.
 *
 * Each call is an OpenTelemetry `execute_tool` span (see the README's "Tracing").
 *
 * @example const result = await executeToolCall(call, { registry, principal: 'key_1', timeoutMs: 10_000 });
 */
export function executeToolCall(call: ToolCall, options: ExecuteToolCallOptions): Promise<ToolResult> {
  const known = call.providerExecuted === true || options.registry.get(call.name) !== undefined;
  const maxChars = resolveMaxResultChars(options.maxResultChars);
  return traceToolExecution(call, async () => boundToolResult(await executeAudited(call, options), maxChars), known ? KNOWN_TOOL : UNKNOWN_TOOL);
}

/** `maxResultChars` checked, with its default. */
export function resolveMaxResultChars(maxChars: number | undefined): number {
  if (maxChars === undefined) return DEFAULT_MAX_RESULT_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxResultChars must be a whole number >= 1, got ${String(maxChars)}.`);
  return maxChars;
}

/**
 * The answer to a call of a tool nobody offered (the model invented the name), with its
 * `execute_tool` span and audit report, as `executeToolCall` gives a registry's unknown
 * name: `message` is what the model reads, with the name as written; the span and the
 * audit get the name cut to 64 characters.
 */
export function answerUnknownTool(
  call: ToolCall,
  message: string,
  options: { principal?: string | undefined; onAudit?: ((audit: ToolCallAudit) => void) | undefined; maxResultChars?: number | undefined },
): Promise<ToolResult> {
  return traceToolExecution(
    call,
    () => {
      // The message quotes the name as the model wrote it, which may be of any length.
      const result = boundToolResult(toolFailure(call, 'unknown_tool', message), resolveMaxResultChars(options.maxResultChars));
      if (options.onAudit !== undefined) {
        const audit: ToolCallAudit = { toolCallId: call.id, toolName: foldUnknownToolName(call.name), outcome: 'unknown_tool', argumentNames: Object.keys(call.arguments), queuedMs: 0, durationMs: 0 };
        if (options.principal !== undefined) audit.principal = options.principal;
        audit.error = unknownToolAuditMessage(call.name);
        options.onAudit(audit);
      }
      return Promise.resolve(result);
    },
    UNKNOWN_TOOL,
  );
}

/** The audit's message for an unknown tool: the folded name (the model's message lists the offered tools, and the name as written). */
function unknownToolAuditMessage(name: string): string {
  return `Unknown tool "${foldUnknownToolName(name)}".`;
}

async function executeAudited(call: ToolCall, options: ExecuteToolCallOptions): Promise<ToolResult> {
  const { onAudit } = options;
  if (onAudit === undefined) return run(call, options, undefined);
  const timing: Timing = { startedAt: performance.now(), slotAt: undefined };
  const report = (outcome: ToolCallAudit['outcome'], error?: string): void => {
    const now = performance.now();
    const slotAt = timing.slotAt ?? now;
    const unknown = outcome === 'unknown_tool';
    const audit: ToolCallAudit = {
      toolCallId: call.id,
      toolName: unknown ? foldUnknownToolName(call.name) : call.name,
      outcome,
      argumentNames: Object.keys(call.arguments),
      queuedMs: slotAt - timing.startedAt,
      durationMs: timing.slotAt === undefined ? 0 : now - timing.slotAt,
    };
    if (options.principal !== undefined) audit.principal = options.principal;
    if (error !== undefined) audit.error = unknown ? unknownToolAuditMessage(call.name) : error;
    onAudit(audit);
  };
  let result: ToolResult;
  try {
    result = await run(call, options, timing);
  } catch (error) {
    if (options.signal?.aborted === true) report('aborted');
    throw error;
  }
  if (result.success) report('success');
  else report(result.error?.type ?? 'execution_error', result.message);
  return result;
}

async function run(call: ToolCall, options: ExecuteToolCallOptions, timing: Timing | undefined): Promise<ToolResult> {
  const { registry, principal, signal, timeoutMs, messages } = options;
  signal?.throwIfAborted();
  const { name } = call;

  if (call.providerExecuted === true) {
    return toolFailure(call, 'unsupported', `Tool "${name}" is run by the provider; its result comes from the provider.`);
  }
  const tool = registry.get(name);
  if (!tool) {
    const available = registry.list(principal).map((t) => t.name);
    const list = available.length > 0 ? available.join(', ') : '(none)';
    return toolFailure(call, 'unknown_tool', `Unknown tool "${name}". Available tools: ${list}. Call one of these instead.`);
  }
  if (!registry.isAllowed(name, principal)) {
    return toolFailure(call, 'permission_denied', `Tool "${name}" is not allowed for this caller. Answer without it.`);
  }
  if (call.invalid) {
    return toolFailure(
      call,
      'validation_error',
      `The arguments of "${name}" could not be read: ${call.invalid.message}. Send them again as one JSON object that matches the tool's schema.`,
    );
  }
  let validated: ReturnType<typeof tool.validate>;
  try {
    validated = tool.validate(call.arguments);
  } catch (error) {
    // A custom refinement that throws is the tool's bug, not the model's.
    return toolFailure(call, 'execution_error', `Tool "${name}" could not check its arguments: ${errorText(error)}`);
  }
  if (!validated.success) {
    return toolFailure(call, 'validation_error', `Invalid arguments for "${name}": ${validated.message}. Fix them and call "${name}" again.`);
  }
  if (!tool.execute) {
    return toolFailure(call, 'unsupported', `Tool "${name}" has no handler here; the client answers this call.`);
  }
  const rate = registry.takeRateLimit(name, principal);
  if (!rate.allowed) {
    const wait = Number.isFinite(rate.retryAfterMs) ? `wait ${Math.ceil(rate.retryAfterMs / 1000)} s before calling it again` : 'do not call it again';
    return toolFailure(call, 'rate_limited', `Tool "${name}" was called too often; ${wait}.`);
  }

  const controller = new AbortController();
  let timedOut = false;
  const onCallerAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException(`Tool "${name}" timed out after ${timeoutMs} ms.`, 'TimeoutError'));
        }, timeoutMs);
  const cleanup = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onCallerAbort);
  };

  let release: () => void;
  try {
    release = await registry.acquireSlot(controller.signal);
  } catch (error) {
    cleanup();
    if (signal?.aborted) throw signal.reason;
    if (timedOut) {
      return toolFailure(call, 'timeout', `Tool "${name}" did not get a free slot within ${timeoutMs} ms (too many tools running); try again later.`);
    }
    throw error;
  }
  if (timing) timing.slotAt = performance.now();

  const context = { toolCallId: call.id, signal: controller.signal, principal, messages };
  const run = new Promise<unknown>((resolve) => {
    resolve(tool.execute?.(validated.value, context));
  });
  void run.then(release, release);
  const outcome = await new Promise<Outcome>((resolve) => {
    run.then(
      (value) => resolve({ kind: 'returned', value }),
      (error: unknown) => resolve({ kind: 'threw', error }),
    );
    if (controller.signal.aborted) resolve({ kind: 'stopped' });
    controller.signal.addEventListener('abort', () => resolve({ kind: 'stopped' }), { once: true });
  });
  cleanup();

  if (signal?.aborted) throw signal.reason;
  if (timedOut) {
    return toolFailure(call, 'timeout', `Tool "${name}" timed out after ${timeoutMs} ms. Try simpler arguments or answer without it.`);
  }
  switch (outcome.kind) {
    case 'returned':
      return (
        readReturned(call, outcome.value) ??
        toolFailure(call, 'execution_error', `Tool "${name}" returned a value that cannot be written as JSON.`)
      );
    case 'threw':
      return toolFailure(call, 'execution_error', `Tool "${name}" failed: ${errorText(outcome.error)}`);
    case 'stopped':
      return toolFailure(call, 'execution_error', `Tool "${name}" was stopped.`);
    default: {
      const unexpected: never = outcome;
      return unexpected;
    }
  }
}

/** `toolSuccess`, for a value that may throw when looked at (a revoked Proxy, a throwing getter). */
function readReturned(call: ToolCall, value: unknown): ToolResult | undefined {
  try {
    return toolSuccess(call, value);
  } catch {
    return undefined;
  }
}

/**
 * What a thrown value says, whatever was thrown: a tool may throw anything, including
 * values that throw when printed (a revoked Proxy, a throwing `message` getter or `toJSON`).
 */
function errorText(error: unknown): string {
  try {
    if (error instanceof Error) {
      // A subclass's getter may return anything.
      const message: unknown = error.message;
      return typeof message === 'string' ? message : String(message);
    }
    if (typeof error === 'string') return error;
    const json = JSON.stringify(error);
    if (json !== undefined) return json;
  } catch {
    // Printed below, or not at all.
  }
  try {
    return String(error);
  } catch {
    return 'a value that cannot be printed was thrown';
  }
}
