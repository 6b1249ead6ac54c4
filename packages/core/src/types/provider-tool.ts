import type { ToolResult } from './tool-result.ts';

/** What `handleProviderOutput` is told about the call whose output it handles. */
export interface ProviderToolContext {
  toolCallId: string;
  toolName: string;
  provider: string;
  modelId: string;
  signal?: AbortSignal;
}

/**
 * A tool that the provider executes itself (OpenAI's `code_interpreter`). It is bound to
 * one provider; any other provider rejects it before sending a request.
 */
export interface ProviderTool<TConfig = Record<string, unknown>> {
  type: 'provider';
  /** The provider that runs it, e.g. `'openai'`. */
  provider: string;
  /** Stable id, e.g. `'openai.code_interpreter'`. */
  id: string;
  /** The name calls carry, e.g. `'code_interpreter'`. */
  name: string;
  config: TConfig;
  /** Turns the provider's payload into a `ToolResult`; a default is used when absent. */
  handleProviderOutput?: (output: unknown, context: ProviderToolContext) => ToolResult | Promise<ToolResult>;
}
