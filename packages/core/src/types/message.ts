import type { ProviderMetadata } from './provider-metadata.ts';
import type { ToolCall } from './tool-call.ts';
import type { ToolResult } from './tool-result.ts';

/** Instructions for the model. Providers with a developer role may map it there. */
export interface SystemMessage {
  role: 'system';
  content: string;
}

/** A part of a user message. `image` is a URL or a base64 data URL / raw base64 string. */
export type UserContentPart = { type: 'text'; text: string } | { type: 'image'; image: string; mediaType?: string };

/** What the user said. */
export interface UserMessage {
  role: 'user';
  content: string | UserContentPart[];
}

/** What the model said, with the tool calls it made. */
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls?: ToolCall[];
  /** Results of provider-executed tools (e.g. code interpreter) that belong to this turn. */
  toolResults?: ToolResult[];
  reasoning?: string;
  providerMetadata?: ProviderMetadata;
}

/** The answer to one tool call, sent back to the model. */
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  /** The called tool's name; providers that need it (Ollama) look it up from the call when absent. */
  toolName?: string;
  /** What the model reads. */
  content: string;
  /** The full result, when the message came from `executeToolCall`. */
  result?: ToolResult;
}

/** One turn of a conversation. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
