import type { ToolCall } from './types/tool-call.ts';
import type { ToolErrorType, ToolResult } from './types/tool-result.ts';

/** A failed `ToolResult` whose `message` (what the model reads) is `message`. */
export function toolFailure(call: Pick<ToolCall, 'id' | 'name'>, type: ToolErrorType, message: string): ToolResult {
  return { toolCallId: call.id, name: call.name, success: false, message, error: { type, message } };
}

const TOOL_OUTPUT = Symbol.for('toolwire.toolOutput');

const ERROR_TYPES: ReadonlySet<unknown> = new Set<ToolErrorType>(['unknown_tool', 'permission_denied', 'rate_limited', 'validation_error', 'execution_error', 'timeout', 'unsupported']);

/** What `toolOutput` returns; `executeToolCall` turns it into the `ToolResult` as given. */
export interface ToolOutput {
  readonly [TOOL_OUTPUT]: true;
  readonly message: string;
  readonly value?: unknown;
  readonly success: boolean;
  readonly errorType: ToolErrorType;
}

/**
 * Lets a tool's `execute` choose its result: what the model reads (`message`), the
 * structured `value` for the caller, and whether it failed (a failure keeps its value,
 * e.g. a script's exit code and stderr). Without it, the returned value becomes the
 * message (strings as they are, other values as JSON) and a throw becomes a failure.
 *
 * @example execute: async ({ code }) => {
 *   const run = await runPython(code);
 *   return toolOutput({ message: run.stdout || run.stderr, value: run, success: run.exitCode === 0 });
 * }
 */
export function toolOutput(options: { message: string; value?: unknown; success?: boolean; errorType?: ToolErrorType }): ToolOutput {
  return {
    [TOOL_OUTPUT]: true,
    message: options.message,
    ...(options.value !== undefined ? { value: options.value } : {}),
    success: options.success ?? true,
    errorType: options.errorType ?? 'execution_error',
  };
}

/** True for a value made by `toolOutput`. */
export function isToolOutput(value: unknown): value is ToolOutput {
  return typeof value === 'object' && value !== null && TOOL_OUTPUT in value;
}

/**
 * A `ToolResult` from what `execute` returned: a `toolOutput(…)` as given, strings as they
 * are, other values as JSON. Returns `undefined` when the value cannot be written as JSON
 * (a BigInt, a cycle, a function, a Symbol).
 */
export function toolSuccess(call: Pick<ToolCall, 'id' | 'name'>, value: unknown): ToolResult | undefined {
  if (isToolOutput(value)) {
    // Read as what it may be: JavaScript callers (or a value built by hand) can put anything
    // in these fields, and the model must still read text.
    const message = typeof value.message === 'string' ? value.message : JSON.stringify(value.message);
    if (message === undefined) return undefined;
    const success = typeof value.success === 'boolean' ? value.success : true;
    const result: ToolResult = { toolCallId: call.id, name: call.name, success, message };
    if (value.value !== undefined) result.value = value.value;
    if (!success) result.error = { type: ERROR_TYPES.has(value.errorType) ? value.errorType : 'execution_error', message };
    return result;
  }
  let message: string;
  if (typeof value === 'string') message = value;
  else if (value === undefined) message = 'Done (no output).';
  else {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      return undefined;
    }
    // A function or a Symbol has no JSON at all: `JSON.stringify` returns undefined.
    if (json === undefined) return undefined;
    message = json;
  }
  const result: ToolResult = { toolCallId: call.id, name: call.name, success: true, message };
  if (value !== undefined) result.value = value;
  return result;
}

/**
 * The most characters of a tool's answer the model reads by default (`maxResultChars`): more
 * than any model's context holds, far less than what a tool can return (a 100 MB file).
 */
export const DEFAULT_MAX_RESULT_CHARS = 1_000_000;

/**
 * Cuts the text the model reads (`message`, and `error.message`) to `maxChars`, saying so
 * at the cut; `value` (the caller's) is kept whole.
 */
export function boundToolResult(result: ToolResult, maxChars: number): ToolResult {
  const { message } = result;
  if (message.length <= maxChars) return result;
  const cut = cutText(message, maxChars);
  const bounded: ToolResult = { ...result, message: cut };
  if (result.error) bounded.error = { ...result.error, message: result.error.message === message ? cut : cutText(result.error.message, maxChars) };
  return bounded;
}

function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  // Never half of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}\n[Cut: the tool's answer has ${text.length} characters; only the first ${end} are shown.]`;
}
