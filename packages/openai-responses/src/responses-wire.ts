import type { JsonSchema } from '@toolwire/core';

/** One Responses `input` item (a message, `function_call`, `function_call_output`, `reasoning`, `item_reference`). */
export type ResponsesInputItem = Record<string, unknown> & { type: string };

/** A Responses function tool. */
export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** A tool in the `tools` array: a function tool, or a provider tool's own object (`{ type: 'code_interpreter', … }`). */
export type ResponsesTool = ResponsesFunctionTool | ({ type: string } & Record<string, unknown>);

/** `tool_choice`: a mode, one function, or a hosted tool by type. */
export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string } | { type: string };

/** Responses `usage`. */
export interface ResponsesUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  total_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** A stream event as parsed from an SSE `data:` line (`type` plus its fields), or an `openai` SDK stream event. */
export type ResponsesStreamEvent = object;

/** True for a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
