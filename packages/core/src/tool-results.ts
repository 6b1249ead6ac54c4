import type { ToolCall } from './types/tool-call.ts';
import type { ToolErrorType, ToolResult } from './types/tool-result.ts';

/** A failed `ToolResult` whose `message` (what the model reads) is `message`. */
export function toolFailure(call: Pick<ToolCall, 'id' | 'name'>, type: ToolErrorType, message: string): ToolResult {
  return { toolCallId: call.id, name: call.name, success: false, message, error: { type, message } };
}

/**
 * A successful `ToolResult`: strings are sent as they are, other values as JSON.
 * Returns `undefined` when the value cannot be written as JSON (a BigInt, a cycle).
 */
export function toolSuccess(call: Pick<ToolCall, 'id' | 'name'>, value: unknown): ToolResult | undefined {
  let message: string;
  if (typeof value === 'string') message = value;
  else if (value === undefined) message = 'Done (no output).';
  else {
    try {
      message = JSON.stringify(value);
    } catch {
      return undefined;
    }
  }
  const result: ToolResult = { toolCallId: call.id, name: call.name, success: true, message };
  if (value !== undefined) result.value = value;
  return result;
}
