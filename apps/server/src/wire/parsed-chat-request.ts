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
  /** The function tools the client offered (empty when none). */
  tools: FunctionToolSpec[];
}
