import { resolveAnswerLimits } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { limitUpstreamMessages, resolveMaxMessageBytes } from '@toolwire/core/provider';
import { listModels } from './list-models.ts';
import type { OllamaModelInfo } from './list-models.ts';
import type { OllamaChatSettings } from './ollama-chat-settings.ts';
import { createOllamaChatModel } from './ollama-chat-model.ts';
import type { OllamaConnection } from './ollama-client.ts';
import { resolveOllamaHost } from './ollama-host.ts';

/** Options of `createOllama`. */
export interface OllamaProviderOptions {
  /** The server, e.g. `http://127.0.0.1:11434` (default: `OLLAMA_HOST`, else that URL). */
  host?: string;
  /** Headers sent with every request (e.g. for a proxy in front of Ollama). */
  headers?: Record<string, string>;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
  /**
   * How long a complete answer (the `done: true` chunk of a stream, a whole JSON body) waits
   * for the end of its body before the connection is closed and, for a non-streamed call,
   * the answer taken as it is: for servers (or proxies) that answer and then keep the
   * connection open. Default 2000 ms; 0 waits for the end.
   */
  endGraceMs?: number;
  /**
   * The largest message the server may send, in bytes: one line of a streamed answer, or the
   * whole body of anything else (an answer, an error, the model list). Past it the call fails
   * with an `UpstreamMessageTooLargeError` and the connection is closed, so that a server that
   * never ends a line cannot grow the process without bound. Default 16 MiB; 0 turns the
   * limit off (for a `fetch` that bounds messages itself).
   */
  maxMessageBytes?: number;
  /**
   * The most characters one answer may hold: its text, thinking and tool-call arguments
   * together, streamed or not. Past it the call fails with an `AnswerTooLargeError` and the
   * connection is closed, so that a model that loops cannot grow the process without bound.
   * Default 4 Mi (`DEFAULT_MAX_ANSWER_CHARS`: four times and more what today's models write
   * at most); 0 turns the bound off.
   */
  maxAnswerChars?: number;
  /** The most tool calls one answer may make (default 1024, `DEFAULT_MAX_TOOL_CALLS_PER_ANSWER`); past it, as `maxAnswerChars`. 0 turns it off. */
  maxToolCallsPerAnswer?: number;
}

/** An Ollama server as a Toolwire provider. */
export interface OllamaProvider {
  /** The normalised server URL. */
  readonly host: string;
  /** A `ChatModel` for an installed model; tool calling works whether or not the model has native tools. */
  chat(modelId: string, settings?: OllamaChatSettings): ChatModel;
  /** The installed models, each marked `nativeTools: true` or `false` (text tool calling). */
  listModels(options?: { signal?: AbortSignal }): Promise<OllamaModelInfo[]>;
}

/**
 * Connects Toolwire to an Ollama server.
 *
 * @example
 * const ollama = createOllama();
 * const response = await ollama.chat('qwen3:0.6b').generate({ messages, tools: [weather] });
 */
export function createOllama(options: OllamaProviderOptions = {}): OllamaProvider {
  const connection: OllamaConnection = { host: resolveOllamaHost(options.host) };
  if (options.headers !== undefined) connection.headers = { ...options.headers };
  const maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes, 'maxMessageBytes');
  const fetch = maxMessageBytes > 0 ? limitUpstreamMessages(options.fetch, { maxBytes: maxMessageBytes, setting: 'the maxMessageBytes option of createOllama' }) : options.fetch;
  if (fetch !== undefined) connection.fetch = fetch;
  if (options.endGraceMs !== undefined) connection.endGraceMs = options.endGraceMs;
  connection.answerLimits = resolveAnswerLimits(options, { chars: 'maxAnswerChars', toolCalls: 'maxToolCallsPerAnswer' });
  return {
    host: connection.host,
    chat: (modelId, settings = {}) => createOllamaChatModel({ connection, modelId, settings: { ...settings } }),
    listModels: (listOptions) => listModels(connection, listOptions),
  };
}
