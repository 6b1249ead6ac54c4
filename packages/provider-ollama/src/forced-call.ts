import type { FunctionToolSpec, JsonSchema, ToolCall } from '@toolwire/core';
import { readTextCall } from '@toolwire/core/provider';
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
  // The same reading as a call a model wrote as text on its own (a bare object, a JSON string of arguments).
  return readTextCall(text, allowed);
}
