import { InvalidRequestError } from '@toolwire/core';
import type { ChatRequest } from '@toolwire/core';
import type { OllamaChatSettings, OllamaModelOptions } from './ollama-chat-settings.ts';
import { toOllamaMessages } from './ollama-chat-messages.ts';
import type { OllamaChatBody, OllamaWireTool } from './ollama-wire.ts';

/**
 * Per-request overrides under `providerOptions.ollama` (same names as the settings). They
 * cannot replace the body's `model`, `messages` or `tools`; other keys are ignored.
 */
export type OllamaRequestOptions = Pick<OllamaChatSettings, 'think' | 'keepAlive' | 'options' | 'format'>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `providerOptions.ollama`, checked: a mistyped value is refused instead of reaching the wire. */
export function readOllamaOptions(raw: Record<string, unknown> | undefined): OllamaRequestOptions {
  const result: OllamaRequestOptions = {};
  if (raw === undefined) return result;
  const refuse = (key: string, expected: string): never => {
    throw new InvalidRequestError({ provider: 'ollama', message: `providerOptions.ollama.${key} must be ${expected}; got ${JSON.stringify(raw[key])}.` });
  };
  const { think, keepAlive, options, format } = raw;
  if (think !== undefined) {
    if (typeof think !== 'boolean' && think !== 'low' && think !== 'medium' && think !== 'high' && think !== 'max') refuse('think', 'a boolean or low/medium/high/max');
    result.think = think as OllamaChatSettings['think'];
  }
  if (keepAlive !== undefined) {
    if (typeof keepAlive !== 'string' && typeof keepAlive !== 'number') refuse('keepAlive', 'a duration string or a number of seconds');
    result.keepAlive = keepAlive as OllamaChatSettings['keepAlive'];
  }
  if (options !== undefined) {
    if (!isPlainObject(options)) refuse('options', 'an object of runner options');
    result.options = options as OllamaChatSettings['options'];
  }
  if (format !== undefined) {
    if (format !== 'json' && !isPlainObject(format)) refuse('format', '"json" or a JSON Schema object');
    result.format = format as OllamaChatSettings['format'];
  }
  return result;
}

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
  const perRequest = readOllamaOptions(request.providerOptions?.['ollama']);
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
