import { generateId } from '@toolwire/core';
import type { ToolCall } from '@toolwire/core';
import { isPlainObject } from './convert-messages.ts';

/**
 * Turns Ollama's `message.tool_calls` into core calls. Ollama's ids are 8 characters
 * (and the JS client drops them), so every call gets a fresh `call_` id that cannot
 * collide across the turns of a long history. Arguments normally arrive as an object;
 * a JSON string is parsed, and anything else becomes an `invalid` call.
 */
export function fromOllamaToolCalls(raw: readonly unknown[] | undefined): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const item of raw ?? []) {
    if (!isPlainObject(item)) continue;
    const fn = item['function'];
    if (!isPlainObject(fn)) continue;
    const name = fn['name'];
    if (typeof name !== 'string' || name === '') continue;
    calls.push({ id: generateId('call_'), name, ...toArguments(fn['arguments']) });
  }
  return calls;
}

function toArguments(value: unknown): Pick<ToolCall, 'arguments' | 'invalid'> {
  if (value === undefined || value === null) return { arguments: {} };
  if (isPlainObject(value)) return { arguments: value };
  if (typeof value === 'string') {
    if (value.trim() === '') return { arguments: {} };
    try {
      const parsed: unknown = JSON.parse(value);
      if (isPlainObject(parsed)) return { arguments: parsed };
    } catch {
      // reported below
    }
    return { arguments: {}, invalid: { rawArguments: value, message: 'The arguments are not a JSON object.' } };
  }
  return {
    arguments: {},
    invalid: { rawArguments: JSON.stringify(value), message: 'The arguments are not a JSON object.' },
  };
}
