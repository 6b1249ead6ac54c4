import { generateId } from '@toolwire/core';
import type { ToolCall } from '@toolwire/core';
import { toToolCall } from '@toolwire/core/provider';
import { isPlainObject } from './ollama-chat-messages.ts';

/**
 * Turns Ollama's `message.tool_calls` into core calls. Ollama's ids are 8 characters
 * (and the JS client drops them), so every call gets a fresh `call_` id that cannot
 * collide across the turns of a long history. Arguments normally arrive as an object;
 * anything else follows core's `toToolCall` rule (unparseable text becomes an `invalid` call).
 */
export function fromOllamaToolCalls(raw: readonly unknown[] | undefined): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const item of raw ?? []) {
    if (!isPlainObject(item)) continue;
    const fn = item['function'];
    if (!isPlainObject(fn)) continue;
    const name = fn['name'];
    if (typeof name !== 'string' || name === '') continue;
    const args = fn['arguments'];
    // Ollama sends an object; a string (some models, some versions) follows core's one rule.
    const rawArguments = isPlainObject(args) || typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args);
    calls.push(toToolCall({ id: generateId('call_'), name, rawArguments }));
  }
  return calls;
}
