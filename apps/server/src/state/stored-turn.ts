import type { StoredHiddenTurn } from '../hidden-tool-turns.ts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isToolCall(value: unknown): boolean {
  return isObject(value) && typeof value.id === 'string' && typeof value.name === 'string' && isObject(value.arguments);
}

function isToolMessage(value: unknown): boolean {
  return (
    isObject(value) &&
    value.role === 'tool' &&
    typeof value.toolCallId === 'string' &&
    typeof value.content === 'string' &&
    (value.toolName === undefined || typeof value.toolName === 'string') &&
    (value.error === undefined || (isObject(value.error) && typeof value.error.type === 'string' && (value.error.message === undefined || typeof value.error.message === 'string')))
  );
}

/**
 * A hidden turn read back from Redis, or undefined when the value is not one (not JSON, or
 * another shape: a value another program wrote under the prefix). Such a value is treated
 * as no turn, never handed to the model.
 */
export function parseStoredTurn(text: string): StoredHiddenTurn | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const { clientCallIds, toolCalls, results } = value;
  if (!Array.isArray(clientCallIds) || clientCallIds.length === 0 || !clientCallIds.every((id) => typeof id === 'string')) return undefined;
  if (!Array.isArray(toolCalls) || !toolCalls.every(isToolCall)) return undefined;
  if (!Array.isArray(results) || !results.every(isToolMessage)) return undefined;
  return value as unknown as StoredHiddenTurn;
}
