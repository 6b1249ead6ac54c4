import type { ChatRequest, FunctionToolSpec, Message } from '@toolwire/core';

/** The model settings a Chat Completions request carries, in core's names. */
type ForwardedSettings = Pick<
  ChatRequest,
  'toolChoice' | 'parallelToolCalls' | 'maxOutputTokens' | 'temperature' | 'topP' | 'stop' | 'seed' | 'responseFormat'
>;

/** A validated Chat Completions request, already in core's shapes. */
export interface ParsedChatRequest extends ForwardedSettings {
  /** The routed model name as the client sent it, e.g. `openai/gpt-4o`. */
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: send a usage chunk before `[DONE]`. */
  includeUsage: boolean;
  messages: Message[];
  /** The API the request came in on, for the examples in error messages (default `chat`). */
  wire?: 'chat' | 'responses';
  /** The function tools the client offered (empty when none), after `allowed_tools`. */
  tools: ParsedTool[];
}

/**
 * One function entry of `tools`. `definition` says how much of it the client wrote, which
 * decides whose tool it is: `name-only` (`{ name }` alone) asks for the server tool of that
 * name; `with-parameters` is always the client's own; `without-parameters` (a description
 * or `strict`, no `parameters`) is the client's unless it names a server tool, which is a 400.
 */
export interface ParsedTool {
  /** The function as the client sent it (no `parameters`: an empty object schema). */
  spec: FunctionToolSpec;
  /** Its position in the request's `tools`, for error messages. */
  index: number;
  /** Where it sits in the request (`tools[2]`, `tools[2].tools[0]`), when not `tools[index].function`. */
  param?: string;
  definition: 'name-only' | 'without-parameters' | 'with-parameters';
}
