import type { FunctionToolSpec, Message, ResponseFormat, ToolChoice } from '@toolwire/core';

/** A validated Chat Completions request, already in core's shapes. */
export interface ParsedChatRequest {
  /** The routed model name as the client sent it, e.g. `openai/gpt-4o`. */
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: send a usage chunk before `[DONE]`. */
  includeUsage: boolean;
  messages: Message[];
  /** The function tools the client offered (empty when none). */
  tools: FunctionToolSpec[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  responseFormat?: ResponseFormat;
}
