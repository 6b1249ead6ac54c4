import type { ChatModel } from '@toolwire/core';
import { createChatGPT } from '@toolwire/provider-chatgpt-oauth';
import { createOllama } from '@toolwire/provider-ollama';
import { createOpenAI } from '@toolwire/provider-openai';
import { CliError } from './cli-error.ts';
import { chatGPTAuthOptions } from './commands/login.ts';
import type { CommandContext } from './context.ts';
import { parseModelRef } from './program.ts';

/** The providers the CLI routes to, by the prefix of `--model provider/model`. */
export const PROVIDER_NAMES = ['openai', 'ollama', 'chatgpt'] as const;

/** A provider name. */
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Whether the environment names an OpenAI(-compatible) endpoint. */
export function openAIConfigured(env: NodeJS.ProcessEnv): boolean {
  return nonEmpty(env.OPENAI_API_KEY) || nonEmpty(env.OPENAI_BASE_URL);
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/** The OpenAI provider configured from the environment (the same variables the gateway reads). */
export function openAIFromEnv(env: NodeJS.ProcessEnv): ReturnType<typeof createOpenAI> {
  if (nonEmpty(env.OPENAI_BASE_URL) && !isHttpUrl(env.OPENAI_BASE_URL)) {
    throw new CliError('OPENAI_BASE_URL is not an absolute http:// or https:// URL (its value is not shown: it can hold credentials).', {
      hint: 'e.g. export OPENAI_BASE_URL=http://127.0.0.1:8080/v1, or unset it for api.openai.com',
    });
  }
  return createOpenAI({
    ...(nonEmpty(env.OPENAI_API_KEY) ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(nonEmpty(env.OPENAI_BASE_URL) ? { baseURL: env.OPENAI_BASE_URL } : {}),
  });
}

/** The Ollama provider configured from the environment (`OLLAMA_HOST`). */
export function ollamaFromEnv(env: NodeJS.ProcessEnv): ReturnType<typeof createOllama> {
  try {
    return createOllama(nonEmpty(env.OLLAMA_HOST) ? { host: env.OLLAMA_HOST } : {});
  } catch (error) {
    // The client's own parse fails with a bare "Invalid URL" that names no variable.
    throw new CliError('OLLAMA_HOST is not a usable address (its value is not shown: it can hold credentials).', {
      hint: 'e.g. export OLLAMA_HOST=http://127.0.0.1:11434 (or host:port), or unset it for the default',
      cause: error,
    });
  }
}

function isHttpUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}

/**
 * The ChatGPT provider with the sign-in settings `toolwire login` uses (see
 * `chatGPTAuthOptions`), and `TOOLWIRE_CHATGPT_BASE_URL` (the backend, for testing).
 */
export function chatGPTFromEnv(context: CommandContext): ReturnType<typeof createChatGPT> {
  const auth = chatGPTAuthOptions(context);
  const baseURL = context.env.TOOLWIRE_CHATGPT_BASE_URL;
  return createChatGPT({ auth, ...(auth.logger ? { logger: auth.logger } : {}), ...(nonEmpty(baseURL) ? { baseURL } : {}) });
}

/** Turns `--model provider/model` into a model, with a clear error for what is missing. */
export function resolveChatModel(context: CommandContext, ref: string): ChatModel {
  const { provider, modelId } = parseModelRef(ref, PROVIDER_NAMES);
  switch (provider as ProviderName) {
    case 'openai':
      if (!openAIConfigured(context.env)) {
        throw new CliError('OPENAI_API_KEY is not set.', {
          hint: 'export OPENAI_API_KEY=sk-… (or OPENAI_BASE_URL for an OpenAI-compatible server)',
        });
      }
      return openAIFromEnv(context.env).chat(modelId);
    case 'ollama':
      return ollamaFromEnv(context.env).chat(modelId);
    case 'chatgpt':
      // The sign-in `toolwire login` wrote (TOOLWIRE_CHATGPT_AUTH_FILE, CODEX_HOME, …), and its warnings on stderr.
      return chatGPTFromEnv(context).chat(modelId);
  }
}
