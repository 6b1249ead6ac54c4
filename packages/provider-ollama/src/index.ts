export { createOllama } from './create-ollama.ts';
export type { OllamaProvider, OllamaProviderOptions } from './create-ollama.ts';
export type { OllamaModelInfo } from './list-models.ts';
export type { OllamaChatSettings, OllamaModelOptions, OllamaThink } from './ollama-chat-settings.ts';
export type { OllamaRequestOptions } from './ollama-chat-request.ts';
export { DEFAULT_OLLAMA_HOST } from './ollama-host.ts';
