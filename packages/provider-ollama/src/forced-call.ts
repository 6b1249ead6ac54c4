import { generateId } from '@toolwire/core';
import type { FunctionToolSpec, JsonSchema, ToolCall } from '@toolwire/core';
import { isPlainObject } from './ollama-chat-messages.ts';
import type { OllamaWireMessage } from './ollama-wire.ts';

/**
 * The JSON Schema `format` that makes the model's whole answer one call:
 * `{ "name": <one of the allowed names>, "arguments": <that tool's parameters> }`.
 */
export function forcedCallFormat(tools: readonly FunctionToolSpec[]): JsonSchema {
  const variants: JsonSchema[] = tools.map((tool) => ({
    type: 'object',
    properties: { name: { type: 'string', enum: [tool.name] }, arguments: argumentsSchema(tool.inputSchema) },
    required: ['name', 'arguments'],
  }));
  const [only] = variants;
  return variants.length === 1 && only !== undefined ? only : { anyOf: variants };
}

function argumentsSchema(schema: JsonSchema): JsonSchema {
  // An empty schema would let the grammar emit any JSON value; arguments are an object.
  return schema.type === undefined ? { ...schema, type: 'object' } : schema;
}

/** The corrective instruction appended to a constrained request (not to the caller's history). */
export function forcedCallInstruction(tools: readonly FunctionToolSpec[]): OllamaWireMessage {
  const names = tools.map((tool) => tool.name);
  const which = names.length === 1 ? `the tool "${names[0] ?? ''}"` : `one of the tools ${names.map((n) => `"${n}"`).join(', ')}`;
  return {
    role: 'user',
    content: `Call ${which} now. Answer with only a JSON object {"name": <tool name>, "arguments": {…}}.`,
  };
}

/**
 * Reads the call from a constrained answer; `undefined` when the text is not a call to
 * one of `allowed` (a model can still stop early, e.g. at `num_predict`).
 */
export function parseForcedCall(text: string, allowed: readonly FunctionToolSpec[]): ToolCall | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const name = value['name'];
  if (typeof name !== 'string' || !allowed.some((tool) => tool.name === name)) return undefined;
  let args: unknown = value['arguments'] ?? value['parameters'] ?? {};
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (!isPlainObject(args)) return undefined;
  return { id: generateId('call_'), name, arguments: args };
}
