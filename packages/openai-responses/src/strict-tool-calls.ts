import type { ChatResponse, ChatStreamEvent, ToolCall, ToolSpec } from '@toolwire/core';
import { removeStrictNulls } from './strict-json-schema.ts';

/** Fixes up calls of strict tools (see `removeStrictNulls`); the identity when no tool is strict. */
export type StrictCallRestorer = (call: ToolCall) => ToolCall;

// Module-level: a closure made beside the one below would share its scope, and keep the
// (empty) schema map alive for as long as a stream holds its restorer.
const keepCall: StrictCallRestorer = (call) => call;

/** Builds the restorer for a request's tools: the same identity function for every request without strict tools. */
export function createStrictCallRestorer(tools: readonly ToolSpec[] | undefined): StrictCallRestorer {
  const schemas = new Map<string, NonNullable<Extract<ToolSpec, { type: 'function' }>['inputSchema']>>();
  for (const tool of tools ?? []) if (tool.type === 'function' && tool.strict === true) schemas.set(tool.name, tool.inputSchema);
  if (schemas.size === 0) return keepCall;
  return (call) => {
    const schema = schemas.get(call.name);
    if (!schema || call.invalid || call.providerExecuted === true) return call;
    return { ...call, arguments: removeStrictNulls(call.arguments, schema) };
  };
}

/** Applies the restorer to a whole response (its calls and its message). */
export function restoreResponseCalls(response: ChatResponse, restore: StrictCallRestorer): ChatResponse {
  if (response.toolCalls.length === 0) return response;
  const toolCalls = response.toolCalls.map(restore);
  return { ...response, toolCalls, message: { ...response.message, toolCalls } };
}

/** Applies the restorer to a stream event. */
export function restoreEventCall(event: ChatStreamEvent, restore: StrictCallRestorer): ChatStreamEvent {
  return event.type === 'tool-call' ? { type: 'tool-call', toolCall: restore(event.toolCall) } : event;
}
