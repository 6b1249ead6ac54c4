import type { ChatRequest, FunctionToolSpec, Message } from '@toolwire/core';

/** The model settings a Responses request carries, in core's names. */
type ForwardedSettings = Pick<ChatRequest, 'toolChoice' | 'parallelToolCalls' | 'maxOutputTokens' | 'temperature' | 'topP' | 'responseFormat'>;

/**
 * One tool the client offered, as a function the model can call. `definition` says how much
 * of it the client wrote, which decides whose tool it is (apps/server/README.md, "Whose tool
 * is it"): `name-only` asks for the server tool of that name, `with-parameters` is always
 * the client's. `kind: 'custom'` is a freeform tool offered to the model as a function with
 * one string argument `input`; its calls go back as `custom_tool_call` items. `namespace` is
 * set for a function that came inside a `namespace` tool; its calls carry it back.
 */
export interface ResponsesTool {
  spec: FunctionToolSpec;
  /** Its position in the request's `tools` (`tools[2]` or `tools[2].tools[0]`), for error messages. */
  param: string;
  /** The top-level position in `tools`. */
  index: number;
  definition: 'name-only' | 'without-parameters' | 'with-parameters';
  kind: 'function' | 'custom';
  namespace?: string;
}

/** The request fields a Response object repeats back, as the client sent them (or OpenAI's defaults). */
export interface ResponsesEcho {
  instructions: string | null;
  /** `tools` as sent. */
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  text: Record<string, unknown>;
  reasoning: { effort: string | null; summary: string | null };
  metadata: Record<string, string>;
  prompt_cache_key: string | null;
  store: boolean;
  truncation: 'auto' | 'disabled';
  user: string | null;
  service_tier: string;
  previous_response_id: string | null;
}

/** A validated `POST /v1/responses` request, already in core's shapes. */
export interface ParsedResponsesRequest extends ForwardedSettings {
  /** The routed model name as the client sent it, e.g. `ollama/qwen3`. */
  model: string;
  stream: boolean;
  /** `instructions` first (as a system message), then `input`. */
  messages: Message[];
  /** The tools the client offered (after `allowed_tools`), each as a function. */
  tools: ResponsesTool[];
  /** What the Response object says about the request. */
  echo: ResponsesEcho;
}
