import type { JsonSchema } from './json-schema.ts';
import type { Message } from './message.ts';
import type { ProviderTool } from './provider-tool.ts';
import type { FunctionToolSpec } from './tool.ts';
import type { ToolChoice } from './tool-choice.ts';

/** Anything that can be offered to a model: a function tool (or a `Tool`) or a provider tool. */
export type ToolSpec = FunctionToolSpec | ProviderTool;

/** The output format the model should follow. */
export type ResponseFormat = { type: 'text' } | { type: 'json'; schema?: JsonSchema; name?: string; description?: string };

/** One call to a model. */
export interface ChatRequest {
  messages: Message[];
  tools?: readonly ToolSpec[];
  toolChoice?: ToolChoice;
  /** `false` allows at most one call per turn (enforced even for providers that ignore it). */
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
  /** Extra settings for one provider, keyed by provider name; other providers ignore them. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Extra HTTP headers for this request. */
  headers?: Record<string, string>;
}
