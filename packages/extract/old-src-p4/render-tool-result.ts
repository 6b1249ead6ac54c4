import type { ToolResult } from '@toolwire/core';

/**
 * A tool result as text for the next turn of a model without native tools: which call it
 * answers, then the result's message (or the error, with its type, so the model can react).
 *
 * @example renderToolResult({ toolCallId: 'c1', name: 'get_weather', success: true, message: '21°C, sunny' })
 * // 'Result of get_weather (call c1):\n21°C, sunny'
 */
export function renderToolResult(result: ToolResult): string {
  if (result.success) return `Result of ${result.name} (call ${result.toolCallId}):\n${result.message}`;
  const type = result.error?.type ?? 'execution_error';
  const message = result.error?.message ?? result.message;
  return `Error from ${result.name} (call ${result.toolCallId}, ${type}):\n${message}`;
}
