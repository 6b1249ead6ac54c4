import type { ChatRequest } from '@toolwire/core';
import type { OllamaChatSettings, OllamaModelOptions } from './ollama-chat-settings.ts';
import { toOllamaMessages } from './ollama-chat-messages.ts';
import type { OllamaChatBody, OllamaWireTool } from './ollama-wire.ts';

/** Per-request overrides under `providerOptions.ollama` (same names as the settings). */
type ProviderOptions = Pick<OllamaChatSettings, 'think' | 'keepAlive' | 'options' | 'format'>;

/**
 * The /api/chat body for a request, without tools: messages, runner options (request
 * fields over `settings.options`), `think`, `keep_alive` and `format`.
 * `providerOptions.ollama` overrides the model's settings for one request.
 */
export function buildChatBody(options: {
  modelId: string;
  request: ChatRequest;
  settings: OllamaChatSettings;
  tools?: OllamaWireTool[] | undefined;
}): OllamaChatBody {
  const { request } = options;
  const perRequest = (request.providerOptions?.['ollama'] ?? {}) as ProviderOptions;
  const settings: OllamaChatSettings = { ...options.settings, ...perRequest };

  const runner: OllamaModelOptions = { ...options.settings.options, ...perRequest.options };
  if (request.temperature !== undefined) runner.temperature = request.temperature;
  if (request.topP !== undefined) runner.top_p = request.topP;
  if (request.maxOutputTokens !== undefined) runner.num_predict = request.maxOutputTokens;
  if (request.seed !== undefined) runner.seed = request.seed;
  if (request.stop !== undefined && request.stop.length > 0) runner.stop = request.stop;

  const body: OllamaChatBody = { model: options.modelId, messages: toOllamaMessages(request.messages) };
  if (options.tools !== undefined && options.tools.length > 0) body.tools = options.tools;
  if (settings.format !== undefined) {
    body.format = settings.format;
  } else if (request.responseFormat?.type === 'json') {
    body.format = request.responseFormat.schema ?? 'json';
  }
  if (settings.think !== undefined) body.think = settings.think;
  if (settings.keepAlive !== undefined) body.keep_alive = settings.keepAlive;
  if (Object.keys(runner).length > 0) body.options = runner;
  return body;
}
