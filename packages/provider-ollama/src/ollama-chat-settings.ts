import type { JsonSchema } from '@toolwire/core';

/** Ollama's `think` values: on/off, or an effort level (gpt-oss needs a level). */
export type OllamaThink = boolean | 'low' | 'medium' | 'high' | 'max';

/** Model options Ollama passes to the runner (`temperature`, `num_ctx`, `num_predict`, …). */
export type OllamaModelOptions = Record<string, unknown> & {
  temperature?: number;
  num_ctx?: number;
  num_predict?: number;
  top_p?: number;
  top_k?: number;
  seed?: number;
  stop?: string[];
};

/** Settings of one Ollama chat model: `createOllama().chat(model, settings)`. */
export interface OllamaChatSettings {
  /**
   * How tools reach the model. `'auto'` (default) asks `/api/show`: models with the
   * `tools` capability get native tools, the others text tool calling (`name(args)` in
   * the prompt, calls extracted from the answer). `true` / `false` force one way.
   */
  textTools?: 'auto' | boolean;
  /** Thinking on/off or its level; unset lets Ollama decide (on for thinking models). */
  think?: OllamaThink;
  /** How long the model stays loaded after the call (`"5m"`, seconds, `-1` forever, `0` unload). */
  keepAlive?: string | number;
  /** Runner options; request fields (`temperature`, `maxOutputTokens`, …) override them. */
  options?: OllamaModelOptions;
  /** Output constraint: `'json'` or a JSON Schema. Overrides the request's `responseFormat`. */
  format?: 'json' | JsonSchema;
  /**
   * How native mode enforces `toolChoice: 'required'` or a named tool, which Ollama
   * ignores. `'retry'` (default): a normal call first, and only if the model answers
   * without the required call, one corrective retry constrained by a JSON Schema
   * `format`. `'format'`: constrain the first request already (one request; for models
   * that cannot be trusted to call, at the price of a single call per turn).
   */
  forcedToolCalls?: 'retry' | 'format';
}
