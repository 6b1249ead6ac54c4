// The request and response shapes of Ollama's /api/chat as this package sends and reads
// them. The `ollama` client's own types lag the server: they have no call `id`, no
// `tool_call_id` and no `think: "max"`, and type tool call arguments as `any`.
import type { JsonSchema } from '@toolwire/core';
import type { OllamaModelOptions, OllamaThink } from './ollama-chat-settings.ts';

/** A tool call in a message; Ollama sends `arguments` as an object, not a string. */
export interface OllamaWireToolCall {
  id?: string;
  function: { index?: number; name: string; arguments: Record<string, unknown> };
}

/** A message on the wire. Images are bytes, which the client base64-encodes. */
export interface OllamaWireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  thinking?: string;
  images?: Uint8Array[];
  tool_calls?: OllamaWireToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

/** A function tool on the wire (the OpenAI nested shape). */
export interface OllamaWireTool {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonSchema };
}

/** The body of POST /api/chat. */
export interface OllamaChatBody {
  model: string;
  messages: OllamaWireMessage[];
  tools?: OllamaWireTool[];
  format?: 'json' | JsonSchema;
  think?: OllamaThink;
  keep_alive?: string | number;
  options?: OllamaModelOptions;
  stream?: boolean;
}

/** One /api/chat answer, or one NDJSON chunk of a streamed answer. */
export interface OllamaChatChunk {
  model?: string;
  message?: {
    role?: string;
    content?: string;
    thinking?: string;
    tool_calls?: unknown[];
  };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  total_duration?: number;
  load_duration?: number;
}
