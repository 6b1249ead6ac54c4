import type { ToolResult } from './tool-result.ts';

/** What `handleProviderOutput` is told about the call whose output it handles. */
export interface ProviderToolContext {
  toolCallId: string;
  toolName: string;
  provider: string;
  modelId: string;
  signal?: AbortSignal;
  /**
   * Annotations the provider attached to the same response's text (OpenAI:
   * `container_file_citation` and friends, as sent on the wire), so a handler can list
   * the files a call produced. Provider-executed results are emitted once the response
   * has completed, so these are complete.
   */
  annotations?: readonly unknown[];
}

/**
 * A tool that the provider executes itself (OpenAI's `code_interpreter`). It is bound to
 * one provider; any other provider rejects it before sending a request.
 */
export interface ProviderTool<TConfig = Record<string, unknown>> {
  // OpenAI convention (provider-openai): `config.wireTool` is the object put in the
  // Responses `tools` array as is (e.g. `{ type: 'code_interpreter', container }`), and
  // `config.include` lists values for the request's `include` parameter.
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
