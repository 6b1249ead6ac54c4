import type { OllamaChatSettings } from './ollama-chat-settings.ts';
import type { OllamaConnection } from './ollama-client.ts';

/** Everything a model of this provider needs to make calls. */
export interface OllamaModelConfig {
  connection: OllamaConnection;
  modelId: string;
  settings: OllamaChatSettings;
}
