import type { SystemMessageMode } from './openai-chat-messages.ts';

/** Settings of one model, given to `openai.chat(modelId, settings)` or `openai.responses(modelId, settings)`. */
export interface OpenAIModelSettings {
  /**
   * Tool calling through the prompt (`withTextToolCalling` from `@toolwire/extract`) for
   * models or servers without native tools. `true` always; `'auto'` switches (once per
   * model, with a warning) when the server rejects `tools` as unsupported. Default `false`.
   */
  textTools?: boolean | 'auto';
  /** How text tools ask the model to write calls: `name(a=1)` (default) or `<tool_call>{json}</tool_call>`. */
  textToolsFormat?: 'call' | 'json-tag';
  /** Chat Completions: send system messages as `system` (default) or `developer`. */
  systemMessageMode?: SystemMessageMode;
  /**
   * Chat Completions: the token-limit field. Default `max_completion_tokens` against
   * api.openai.com, `max_tokens` against other (compatible) servers.
   */
  maxTokensParameter?: 'max_completion_tokens' | 'max_tokens';
}
