import { resolveAnswerLimits } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { limitUpstreamMessages, resolveMaxMessageBytes } from '@toolwire/core/provider';

import { createChatGPTAuth } from './auth/chatgpt-auth.ts';
import type { ChatGPTAuth, ChatGPTAuthOptions, ChatGPTStatus } from './auth/chatgpt-auth.ts';
import { createModelCatalog } from './backend/model-catalog.ts';
import { createChatGPTChatModel } from './chatgpt-chat-model.ts';
import type { ChatGPTChatSettings } from './chatgpt-settings.ts';
import type { ChatGPTResidency } from './backend/request-headers.ts';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, DEFAULT_STREAM_MAX_RETRIES } from './chatgpt-chat-stream.ts';
import { DEFAULT_BASE_URL, resolveClientVersion } from './constants.ts';
import { consoleLogger } from './logger.ts';
import type { ChatGPTLogger } from './logger.ts';

/** Options of `createChatGPT`. */
export interface ChatGPTProviderOptions {
  /** A sign-in manager, or options for one (default: Toolwire's token file, else Codex's `auth.json`). */
  auth?: ChatGPTAuth | ChatGPTAuthOptions;
  /** Default `https://chatgpt.com/backend-api`. */
  baseURL?: string;
  /** Used for backend requests, and for sign-in requests unless `auth` brings its own. */
  fetch?: typeof globalThis.fetch;
  /**
   * The Codex version sent to the model catalog (`client_version`), as `version` and in the
   * User-Agent. Default: `TOOLWIRE_CODEX_VERSION` from the environment, else a recent Codex
   * release. The catalog hides models newer than the version it is told, so keep it current.
   */
  clientVersion?: string;
  /**
   * Data residency your workspace admin enforces (Codex's `enforce_residency`): `'us'` sends
   * `x-openai-internal-codex-residency: us` on every request. Default: not sent, as Codex.
   */
  residency?: ChatGPTResidency;
  /** A streamed answer silent this long is dropped (default 300 000 ms, Codex's). */
  streamIdleTimeoutMs?: number;
  /** How often a dropped or silent stream is sent again while none of it reached the caller (default 5, Codex's). */
  streamMaxRetries?: number;
  /** Where warnings go (default `console.warn`). Never receives tokens. */
  logger?: ChatGPTLogger;
  /** Retries of 5xx answers and failed connections (default 2). */
  maxRetries?: number;
  /** Extra headers on every backend request. */
  headers?: Record<string, string>;
  /** How long the model catalog (base instructions) is used before it is revalidated by ETag (default 5 minutes). */
  catalogTtlMs?: number;
  /**
   * The largest message the backend may send, in bytes: one event of a stream, or the whole
   * body of anything else (the model catalog). Past it the call fails with an
   * `UpstreamMessageTooLargeError` (not sent again) and the connection is closed, so that a
   * backend, proxy or endpoint that never ends a message cannot grow the process without
   * bound. Default 16 MiB; 0 turns the limit off (for a `fetch` that bounds messages itself).
   */
  maxMessageBytes?: number;
  /**
   * The most characters one answer may hold: its text, reasoning, refusal and tool-call
   * arguments together. Past it the call fails with an `AnswerTooLargeError` (not sent
   * again) and the connection is closed, so that a model that loops cannot grow the process
   * without bound. Default 4 Mi (`DEFAULT_MAX_ANSWER_CHARS`: four times and more what today's
   * models write at most); 0 turns the bound off.
   */
  maxAnswerChars?: number;
  /** The most tool calls one answer may make (default 1024, `DEFAULT_MAX_TOOL_CALLS_PER_ANSWER`); past it, as `maxAnswerChars`. 0 turns it off. */
  maxToolCallsPerAnswer?: number;
}

/** A ChatGPT-subscription provider: models and the sign-in behind them. */
export interface ChatGPTProvider {
  /** A model of the Codex backend, e.g. `chatgpt.chat('gpt-5.4', { reasoningEffort: 'high' })`. */
  chat(modelId: string, settings?: ChatGPTChatSettings): ChatModel;
  /** The sign-in manager the models use. */
  readonly auth: ChatGPTAuth;
  /** The sign-in state (account, plan, expiry), without tokens. */
  whoami(): Promise<ChatGPTStatus>;
}

/**
 * Creates the provider. Models call `POST {baseURL}/codex/responses` with the signed-in
 * account's tokens, refreshed as needed.
 *
 * @example
 * const chatgpt = createChatGPT();
 * const response = await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'Hi' }] });
 */
export function createChatGPT(options: ChatGPTProviderOptions = {}): ChatGPTProvider {
  const logger = options.logger ?? consoleLogger;
  const maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes, 'maxMessageBytes');
  // Sign-in requests keep the caller's fetch: the sign-in reads its answers with bounds of its own.
  const fetchImpl =
    maxMessageBytes > 0
      ? limitUpstreamMessages(options.fetch, { maxBytes: maxMessageBytes, setting: 'the maxMessageBytes option of createChatGPT' })
      : (options.fetch ?? globalThis.fetch);
  const auth = isAuth(options.auth)
    ? options.auth
    : createChatGPTAuth({ logger, ...(options.fetch ? { fetch: options.fetch } : {}), ...options.auth });
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  const clientVersion = options.clientVersion ?? resolveClientVersion(process.env);
  const context = {
    auth,
    baseURL,
    fetch: fetchImpl,
    catalog: createModelCatalog({
      baseURL,
      fetch: fetchImpl,
      clientVersion,
      logger,
      residency: options.residency,
      ...(options.catalogTtlMs !== undefined ? { ttlMs: options.catalogTtlMs } : {}),
    }),
    clientVersion,
    logger,
    maxRetries: options.maxRetries ?? 2,
    streamIdleTimeoutMs: positive(options.streamIdleTimeoutMs, 'streamIdleTimeoutMs') ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    streamMaxRetries: options.streamMaxRetries ?? DEFAULT_STREAM_MAX_RETRIES,
    residency: options.residency,
    headers: options.headers ?? {},
    reportedLeftOut: new Set<string>(),
    answerLimits: resolveAnswerLimits(options, { chars: 'maxAnswerChars', toolCalls: 'maxToolCallsPerAnswer' }),
  };
  return {
    auth,
    chat(modelId, settings = {}) {
      return createChatGPTChatModel(modelId, settings, context);
    },
    whoami() {
      return auth.status();
    },
  };
}

function isAuth(value: ChatGPTAuth | ChatGPTAuthOptions | undefined): value is ChatGPTAuth {
  return value !== undefined && 'getCredentials' in value && typeof value.getCredentials === 'function';
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds; got ${String(value)}.`);
  return value;
}
