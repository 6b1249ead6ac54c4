import { readFile } from 'node:fs/promises';
import { ModelNotFoundError } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import type { AnswerBounds } from '../loop/run-gateway-loop.ts';
import { createReplayModel } from '@toolwire/core/testing';
import { withTextToolCalling } from '@toolwire/extract';
import { createChatGPT } from '@toolwire/provider-chatgpt-oauth';
import { createOllama } from '@toolwire/provider-ollama';
import { createOpenAI } from '@toolwire/provider-openai';
import type { OpenAISdkLogger } from '@toolwire/provider-openai';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.ts';
import type { ProvidersConfig } from '../config/server-config.ts';
import type { ModelProvider } from './model-provider.ts';
import { createNodeHttpFetch } from './node-http-fetch.ts';

/** The upstream limits of `limits` the providers apply. */
export interface UpstreamLimits {
  upstreamIdleTimeoutMs?: number;
  upstreamMessageLimitBytes?: number;
  /** The bounds on one answer (`maxAnswerChars`, `maxToolCallsPerAnswer`); the providers' defaults when absent. */
  answerLimits?: AnswerBounds;
}

/** A provider that serves only `models` when the config lists them. */
function restricted(name: string, models: readonly string[] | undefined, chat: (id: string) => ChatModel): (id: string) => ChatModel {
  if (models === undefined) return chat;
  return (id) => {
    if (!models.includes(id)) {
      throw new ModelNotFoundError({
        provider: name,
        status: 404,
        modelId: id,
        message: `The model '${name}/${id}' is not offered by this gateway. Configured: ${models.map((m) => `${name}/${m}`).join(', ')}.`,
      });
    }
    return chat(id);
  };
}

async function replayProvider(config: NonNullable<ProvidersConfig['replay']>): Promise<ModelProvider> {
  const models = new Map<string, ChatModel>();
  for (const [name, path] of Object.entries(config.transcripts)) {
    let transcript: unknown;
    try {
      transcript = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      throw new ConfigError({ setting: `providers.replay.transcripts.${name}`, message: `cannot read the transcript ${path}: ${(error as Error).message}` });
    }
    // Recorded models write their calls as text; the wrapper parses them like a live text-only model's.
    const replay = createReplayModel(transcript as Parameters<typeof createReplayModel>[0], { provider: 'replay', modelId: name });
    models.set(name, config.textTools === false ? replay : withTextToolCalling(replay));
  }
  return {
    name: 'replay',
    chat: (id) => {
      const model = models.get(id);
      if (model === undefined) {
        throw new ModelNotFoundError({
          provider: 'replay',
          status: 404,
          modelId: id,
          message: `No transcript is named '${id}'. Configured: ${[...models.keys()].map((m) => `replay/${m}`).join(', ') || '(none)'}.`,
        });
      }
      return model;
    },
    listModels: () => Promise.resolve([...models.keys()]),
  };
}

/**
 * The `openai` SDK's own lines (it logs a garbled stream event that the provider already
 * turns into the request's error) go into the gateway's log, as JSON lines with the
 * provider's credentials redacted, never to stderr on their own; and only when `OPENAI_LOG`
 * asks for them (at its level; pino's level still applies), since otherwise they repeat the
 * failure the gateway logs itself.
 */
function sdkLogging(logger: Logger | undefined): { logger?: OpenAISdkLogger; logLevel?: 'off' } {
  const quiet = process.env['OPENAI_LOG'] === undefined || process.env['OPENAI_LOG'] === '';
  if (logger === undefined) return quiet ? { logLevel: 'off' } : {};
  const log = logger.child({ provider: 'openai', source: 'openai-sdk' });
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...details: unknown[]): void => {
      if (details.length === 0) log[level](message);
      else log[level]({ details }, message);
    };
  return { logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }, ...(quiet ? { logLevel: 'off' as const } : {}) };
}

/** The routing prefixes the config asks for, built on the provider packages. */
export async function createConfiguredProviders(
  config: ProvidersConfig,
  options: UpstreamLimits & { logger?: Logger } = {},
): Promise<ModelProvider[]> {
  const providers: ModelProvider[] = [];
  const answer = options.answerLimits ?? {};
  // No cap on upstream sockets: a stream holds its socket for its whole length, so a cap
  // (the agent's was 256) would queue every stream past it behind the running ones. The fetch
  // bounds each upstream message itself (`limits.upstreamMessageLimitBytes`, read straight off
  // the socket): the providers' own bound (`maxMessageBytes`) is turned off, not paid twice.
  const upstreamFetch = createNodeHttpFetch({
    maxSockets: Infinity,
    ...(options.upstreamIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.upstreamIdleTimeoutMs }),
    ...(options.upstreamMessageLimitBytes === undefined ? {} : { maxMessageBytes: options.upstreamMessageLimitBytes }),
  });
  if (config.openai !== undefined) {
    const { models, apiKey, baseURL } = config.openai;
    const openai = createOpenAI({
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
      fetch: upstreamFetch,
      maxMessageBytes: 0,
      ...answer,
      ...sdkLogging(options.logger),
    });
    providers.push({
      name: 'openai',
      chat: restricted('openai', models, (id) => openai.chat(id)),
      listModels: async (signal) => models ?? (await openai.listModels(signal === undefined ? {} : { signal })).map((m) => m.id),
    });
  }
  if (config.ollama !== undefined) {
    const ollama = createOllama({ ...(config.ollama.host === undefined ? {} : { host: config.ollama.host }), fetch: upstreamFetch, maxMessageBytes: 0, ...answer });
    providers.push({
      name: 'ollama',
      chat: (id) => ollama.chat(id),
      listModels: async (signal) => (await ollama.listModels(signal === undefined ? {} : { signal })).map((m) => m.name),
    });
  }
  if (config.chatgpt !== undefined) {
    const { models, authFile, baseURL, issuer } = config.chatgpt;
    const log = options.logger?.child({ provider: 'chatgpt' });
    const chatgptOptions = {
      auth: { ...(authFile === undefined ? {} : { path: authFile }), ...(issuer === undefined ? {} : { issuer }) },
      ...(baseURL === undefined ? {} : { baseURL }),
      fetch: upstreamFetch,
      maxMessageBytes: 0,
      ...answer,
      // Its notes (a refresh, a tool left out) go to the gateway's log; they never hold tokens.
      ...(log === undefined ? {} : { logger: { warn: (m: string) => log.warn(m), info: (m: string) => log.info(m), debug: (m: string) => log.debug(m) } }),
    };
    let chatgpt: ReturnType<typeof createChatGPT> | undefined;
    // Created on first use: reading the sign-in should not stop a gateway that never routes to it.
    const provider = (): ReturnType<typeof createChatGPT> => (chatgpt ??= createChatGPT(chatgptOptions));
    providers.push({
      name: 'chatgpt',
      chat: restricted('chatgpt', models, (id) => provider().chat(id)),
      listModels: () => Promise.resolve(models ?? []),
    });
  }
  if (config.replay !== undefined) providers.push(await replayProvider(config.replay));
  return providers;
}
