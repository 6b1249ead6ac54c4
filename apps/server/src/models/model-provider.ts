import type { ChatModel } from '@toolwire/core';

/**
 * One routing prefix of the gateway (`openai`, `ollama`, `chatgpt`, `replay`, or your own):
 * `openai/gpt-4o` is routed to the provider named `openai` with model id `gpt-4o`.
 */
export interface ModelProvider {
  /** The prefix clients put before `/`. */
  readonly name: string;
  /** A model by id. May throw `ModelNotFoundError` for an id it knows does not exist. */
  chat(modelId: string): ChatModel;
  /** The model ids to list under `GET /v1/models` (without the prefix). */
  listModels(signal?: AbortSignal): Promise<string[]>;
}
