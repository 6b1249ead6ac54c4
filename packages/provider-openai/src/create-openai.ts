import OpenAI from 'openai';
import { resolveAnswerLimits } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { headerCredentials, limitUpstreamMessages, readsFetchSignal, resolveMaxMessageBytes, urlCredentials } from '@toolwire/core/provider';
import { FetchSignalOpenAI } from './fetch-signal-client.ts';
import { listOpenAIModels } from './list-models.ts';
import type { OpenAIModelInfo } from './list-models.ts';
import { DEFAULT_END_GRACE_MS } from './openai-client-context.ts';
import type { OpenAIClientContext } from './openai-client-context.ts';
import { OpenAIChatModel } from './openai-chat-model.ts';
import type { OpenAIModelSettings } from './openai-model-settings.ts';
import { OpenAIResponsesModel } from './openai-responses-model.ts';
import { resolveSdkLogging } from './openai-sdk-logger.ts';
import type { OpenAISdkLogger, OpenAISdkLogLevel } from './openai-sdk-logger.ts';
import { withTextToolsSetting } from './text-tools-model.ts';

/** Options of `createOpenAI`. */
export interface OpenAIProviderOptions {
  /** Default: `OPENAI_API_KEY`. Compatible local servers that need no key get a placeholder. */
  apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  organization?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * The `fetch` the SDK calls. One marked as reading `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL`
   * in `@toolwire/core/provider`) is handed each request's abort signal there, besides the
   * SDK's own in `init.signal`, which spares the SDK's per-call `AbortSignal.any`.
   */
  fetch?: typeof globalThis.fetch;
  /** Retries of 408/409/429/5xx and connection errors (the SDK's; default 2). */
  maxRetries?: number;
  /** Per-request timeout in milliseconds (the SDK's default is 10 minutes). */
  timeoutMs?: number;
  /**
   * Chat Completions: how long an answer that is complete (a stream's finish chunk came, a
   * body's JSON is whole) may wait for the rest (the usage chunk, `[DONE]`, the end of the
   * body) before it is taken as it is and the connection closed: for servers that send their
   * finish and then keep the connection open. Default 2000 ms; 0 waits for the end.
   */
  endGraceMs?: number;
  /**
   * The largest message the server may send, in bytes: one event of a stream, or the whole
   * body of anything else (an answer, an error page, the model list). Past it the call fails
   * with an `UpstreamMessageTooLargeError` and the connection is closed, so that a server
   * that never ends a message cannot grow the process without bound. Default 16 MiB; 0 turns
   * the limit off (for a `fetch` that bounds messages itself).
   */
  maxMessageBytes?: number;
  /**
   * The most characters one answer may hold: its text, reasoning, refusal and tool-call
   * arguments together, streamed or not. Past it the call fails with an
   * `AnswerTooLargeError` and the connection is closed, so that a model that loops (or a
   * server that never finishes its answer) cannot grow the process without bound. Default
   * 4 Mi (`DEFAULT_MAX_ANSWER_CHARS`: four times and more what today's models write at most);
   * 0 turns the bound off.
   */
  maxAnswerChars?: number;
  /**
   * Where the `openai` SDK's own log messages go (`console` has the shape; so has a pino or
   * winston logger bound to its methods). Default: nowhere, unless `OPENAI_LOG` is set (then
   * `console`, as the SDK does by itself). The provider turns what the SDK complains about
   * (a garbled stream event) into its own typed errors, so the SDK's lines only repeat them.
   * The provider's credentials are redacted from every message.
   */
  logger?: OpenAISdkLogger;
  /** The SDK's log level: `off`, `error`, `warn`, `info`, `debug`. Default: `OPENAI_LOG`, else `warn` with a `logger`, `off` without. */
  logLevel?: OpenAISdkLogLevel;
  /** The most tool calls one answer may make (default 1024, `DEFAULT_MAX_TOOL_CALLS_PER_ANSWER`); past it, as `maxAnswerChars`. 0 turns it off. */
  maxToolCallsPerAnswer?: number;
}

/** Models of one OpenAI (or OpenAI-compatible) endpoint. */
export interface OpenAIProvider {
  /** A Chat Completions model. */
  chat(modelId: string, settings?: OpenAIModelSettings): ChatModel;
  /** A Responses API model (provider tools such as the code interpreter live here). */
  responses(modelId: string, settings?: OpenAIModelSettings): ChatModel;
  /** The models the endpoint offers (`GET /models`). */
  listModels(options?: { signal?: AbortSignal }): Promise<OpenAIModelInfo[]>;
  /** The base URL requests go to. */
  readonly baseURL: string;
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The key sent to a compatible server when none is given (the SDK insists on one). */
const NO_API_KEY = 'no-api-key';

function envValue(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Creates an OpenAI provider on the official `openai` SDK. Works with api.openai.com and
 * with servers that speak its API (vLLM, LM Studio, llama.cpp, Ollama's `/v1`).
 *
 * @example
 * const openai = createOpenAI();
 * const response = await openai.chat('gpt-4.1-mini').generate({ messages: [{ role: 'user', content: 'Hi' }] });
 */
export function createOpenAI(options: OpenAIProviderOptions = {}): OpenAIProvider {
  const baseURL = (options.baseURL ?? envValue('OPENAI_BASE_URL') ?? OPENAI_BASE_URL).replace(/\/+$/u, '');
  const isOpenAI = baseURL === OPENAI_BASE_URL;
  const maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes, 'maxMessageBytes');
  const fetch = maxMessageBytes > 0 ? limitUpstreamMessages(options.fetch, { maxBytes: maxMessageBytes, setting: 'the maxMessageBytes option of createOpenAI' }) : options.fetch;
  const answerLimits = resolveAnswerLimits(options, { chars: 'maxAnswerChars', toolCalls: 'maxToolCallsPerAnswer' });
  let client: OpenAI | undefined;
  // Header values that carry credentials (`Authorization`, Azure's `api-key`): a server may echo
  // them; so those of the base URL (`https://user:password@proxy`), which `fetch` quotes refusing it.
  const headerSecrets = [...headerCredentials(options.headers), ...urlCredentials(baseURL)];
  // The stand-in key for a server that needs none is no secret: an error naming it says so.
  const secrets = (): readonly string[] => (client?.apiKey == null || client.apiKey === NO_API_KEY ? headerSecrets : [client.apiKey, ...headerSecrets]);
  const logging = resolveSdkLogging(options, secrets);
  const context: OpenAIClientContext = {
    baseURL,
    isOpenAI,
    endGraceMs: options.endGraceMs ?? DEFAULT_END_GRACE_MS,
    secrets,
    answerLimits,
    client() {
      // Created on first use, so a provider can be set up before its key is known.
      // A fetch that reads `init[FETCH_SIGNAL]` gets the client that hands the signal there (see `FetchSignalOpenAI`).
      client ??= new (readsFetchSignal(fetch) ? FetchSignalOpenAI : OpenAI)({
        // A local compatible server usually needs no key; the SDK insists on one.
        apiKey: options.apiKey ?? envValue('OPENAI_API_KEY') ?? (isOpenAI ? undefined : NO_API_KEY),
        baseURL,
        ...(options.organization !== undefined ? { organization: options.organization } : {}),
        ...(options.headers !== undefined ? { defaultHeaders: options.headers } : {}),
        ...(fetch !== undefined ? { fetch } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
        ...logging,
      });
      return client;
    },
  };
  function withSettings(native: ChatModel, settings: OpenAIModelSettings | undefined): ChatModel {
    const mode = settings?.textTools ?? false;
    if (mode === false) return native;
    return withTextToolsSetting(native, { mode, ...(settings?.textToolsFormat !== undefined ? { format: settings.textToolsFormat } : {}) });
  }
  return {
    baseURL,
    chat: (modelId, settings) => withSettings(new OpenAIChatModel({ modelId, context, ...(settings ? { settings } : {}) }), settings),
    responses: (modelId, settings) => withSettings(new OpenAIResponsesModel({ modelId, context }), settings),
    listModels: (listOptions) => listOpenAIModels(context, listOptions),
  };
}
