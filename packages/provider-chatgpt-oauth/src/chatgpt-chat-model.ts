import { setTimeout as sleep } from 'node:timers/promises';

import { collectStream, ProviderUnavailableError, StreamError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, ProviderError, Warning } from '@toolwire/core';
import { createParser } from 'eventsource-parser';

import type { ChatGPTAuth, ChatGPTCredentials } from './auth/chatgpt-auth.ts';
import { isRecord } from './auth/jwt.ts';
import { backendError } from './backend/backend-errors.ts';
import { buildRequestBody } from './backend/build-request-body.ts';
import type { PreparedRequest } from './backend/build-request-body.ts';
import { createCodexStreamDecoder } from './backend/codex-stream.ts';
import { deriveConversationId } from './backend/conversation-id.ts';
import type { ModelCatalog } from './backend/model-catalog.ts';
import { parseRateLimitHeaders } from './backend/rate-limits.ts';
import { backendHeaders } from './backend/request-headers.ts';
import { resolveSettings } from './chatgpt-settings.ts';
import type { ChatGPTChatSettings } from './chatgpt-settings.ts';
import { PROVIDER_NAME } from './constants.ts';
import { redactSecrets } from './logger.ts';
import { readBoundedText } from './secret-text.ts';
import type { ChatGPTLogger } from './logger.ts';
import { trimTrailingSlashes } from './url.ts';

/** What every model of one `createChatGPT` shares. */
export interface ChatGPTModelContext {
  auth: ChatGPTAuth;
  baseURL: string;
  fetch: typeof globalThis.fetch;
  catalog: ModelCatalog;
  clientVersion: string;
  logger: ChatGPTLogger;
  /** Retries of 5xx and dropped connections before any event was delivered. */
  maxRetries: number;
  headers: Record<string, string>;
  /** Tool names already reported through the logger as left out (one console warning each). */
  reportedLeftOut: Set<string>;
}

/** A model served by the Codex backend (`chatgpt.chat(modelId)`). */
export function createChatGPTChatModel(modelId: string, settings: ChatGPTChatSettings, context: ChatGPTModelContext): ChatModel {
  const model: ChatModel = {
    provider: PROVIDER_NAME,
    modelId,
    generate(request: ChatRequest): Promise<ChatResponse> {
      return collectStream(model.stream(request));
    },
    stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      return streamResponse(modelId, settings, context, request);
    },
  };
  return model;
}

async function* streamResponse(
  modelId: string,
  modelSettings: ChatGPTChatSettings,
  context: ChatGPTModelContext,
  request: ChatRequest,
): AsyncGenerator<ChatStreamEvent> {
  const settings = resolveSettings(modelSettings, request.providerOptions?.[PROVIDER_NAME]);
  const conversationId = settings.conversationId ?? deriveConversationId(modelId, request.messages);
  const signal = request.signal;
  // Build once without network access so that bad tools and histories fail before sign-in.
  const dryRun = buildRequestBody({ modelId, request, settings, instructions: '', conversationId });
  reportLeftOut(dryRun, context);

  let credentials = await context.auth.getCredentials(signal);
  // Every access token this request used, so none of them can leak through an error.
  const secrets = [credentials.accessToken];
  try {
    const base = settings.instructions !== undefined ? undefined : await context.catalog.instructionsFor(modelId, credentials, signal);
    let prepared = buildRequestBody({ modelId, request, settings, instructions: settings.instructions ?? base?.instructions ?? '', conversationId });
    const extraWarnings: Warning[] = [];

    let response = await post(prepared.body);
    if (response.status === 401) {
      await response.body?.cancel();
      credentials = await context.auth.refreshAfterUnauthorized(credentials.accessToken, signal);
      secrets.push(credentials.accessToken);
      response = await post(prepared.body);
    }
    if (response.status === 400 && settings.instructions !== undefined) {
      const text = (await readBoundedText(response)).text;
      if (!text.includes('Instructions are not valid')) throw failure(response, text);
      const fallback = await context.catalog.instructionsFor(modelId, credentials, signal);
      prepared = buildRequestBody({ modelId, request, settings: { ...settings, instructions: fallback.instructions }, instructions: fallback.instructions, conversationId });
      extraWarnings.push({
        type: 'unsupported-setting',
        setting: 'instructions',
        message: 'The backend answered "Instructions are not valid" to the custom instructions; the model\'s base instructions were sent instead. Put your guidance in a system message.',
      });
      response = await post(prepared.body);
    }
    if (!response.ok) throw failure(response, (await readBoundedText(response)).text);
    if (response.body === null) {
      throw new StreamError({ provider: PROVIDER_NAME, message: 'The ChatGPT backend answered without a body. Send the request again.' });
    }

    for (const warning of [...prepared.warnings, ...extraWarnings]) yield { type: 'warning', warning };

    const requestId = response.headers.get('x-request-id') ?? response.headers.get('x-oai-request-id') ?? undefined;
    const rateLimits = parseRateLimitHeaders(response.headers);
    const decoder = createCodexStreamDecoder({
      mapping: prepared.mapping,
      modelId,
      metadata: { conversationId, ...(requestId !== undefined ? { requestId } : {}), ...(rateLimits !== undefined ? { rateLimits } : {}) },
    });
    yield* decodeBody(response.body, decoder, signal);
  } catch (error) {
    throw redact(error, secrets);
  }

  async function post(body: Record<string, unknown>): Promise<Response> {
    const url = `${trimTrailingSlashes(context.baseURL)}/codex/responses`;
    // Headers (not an object spread) so that the caller's headers cannot add a second
    // `Authorization` in another letter case.
    const headers = new Headers(context.headers);
    for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
    for (const [name, value] of Object.entries(backendHeaders({ credentials, sessionId: conversationId, clientVersion: context.clientVersion }))) {
      headers.set(name, value);
    }
    headers.set('content-type', 'application/json');
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await context.fetch(url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
      } catch (error) {
        if (signal?.aborted) throw error;
        if (attempt < context.maxRetries) {
          await sleep(backoffMs(attempt), undefined, signal ? { signal } : {});
          continue;
        }
        throw new ProviderUnavailableError({
          provider: PROVIDER_NAME,
          baseURL: context.baseURL,
          message: `Could not reach the ChatGPT backend at ${context.baseURL}: ${error instanceof Error ? error.message : String(error)}. Check the network connection and baseURL.`,
          cause: error,
        });
      }
      if (response.status >= 500 && attempt < context.maxRetries) {
        await response.body?.cancel();
        await sleep(backoffMs(attempt), undefined, signal ? { signal } : {});
        continue;
      }
      return response;
    }
  }

  function failure(response: Response, text: string): ProviderError {
    return backendError({
      status: response.status,
      // Redacted whole before the error mapping cuts it to a message.
      body: redactSecrets(text, secrets),
      headers: response.headers,
      modelId,
      ...knownModels(context, credentials),
    });
  }
}

async function* decodeBody(
  body: ReadableStream<Uint8Array>,
  decoder: ReturnType<typeof createCodexStreamDecoder>,
  signal: AbortSignal | undefined,
): AsyncGenerator<ChatStreamEvent> {
  let pending: ChatStreamEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      if (message.data === '[DONE]' || message.data === '') return;
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        pending.push({ type: 'error', error: new StreamError({ provider: PROVIDER_NAME, message: `The ChatGPT stream carried an event that is not JSON (${message.event ?? 'message'}).` }) });
        return;
      }
      // The JSON `type` is authoritative; the SSE `event:` name is only a fallback.
      if (isRecord(data)) pending.push(...decoder.push(data.type === undefined && message.event !== undefined ? { ...data, type: message.event } : data));
    },
  });
  const reader = body.getReader();
  const text = new TextDecoder();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw error;
        yield* pending;
        yield {
          type: 'error',
          error: new StreamError({
            provider: PROVIDER_NAME,
            retryable: true,
            message: `The ChatGPT stream broke off: ${error instanceof Error ? error.message : String(error)}. Send the request again.`,
            cause: error,
          }),
        };
        return;
      }
      if (chunk.done) break;
      parser.feed(text.decode(chunk.value, { stream: true }));
      const events = pending;
      pending = [];
      for (const event of events) {
        yield event;
        if (event.type === 'error') return;
        signal?.throwIfAborted();
      }
      if (decoder.finished) return;
    }
    yield* pending;
    yield* decoder.end();
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function reportLeftOut(prepared: PreparedRequest, context: ChatGPTModelContext): void {
  const fresh = prepared.leftOut.filter((name) => !context.reportedLeftOut.has(name));
  if (fresh.length === 0) return;
  for (const name of fresh) context.reportedLeftOut.add(name);
  context.logger.warn(
    `[toolwire/chatgpt] toolMode "codex" left out ${fresh.map((name) => `"${name}"`).join(', ')}: only tools mapped to Codex's shell and update_plan are sent. ` +
      'Use toolMode "passthrough", or cliTools: true.',
  );
}

function knownModels(context: ChatGPTModelContext, credentials: ChatGPTCredentials): { knownModels?: readonly string[] } {
  const models = context.catalog.knownModels(credentials.accountId);
  return models !== undefined ? { knownModels: models } : {};
}

function backoffMs(attempt: number): number {
  return 250 * 2 ** attempt + Math.floor(Math.random() * 100);
}

/** Errors never carry the access token, even when something upstream echoed it. */
function redact(error: unknown, secrets: readonly string[]): unknown {
  if (error instanceof Error) {
    const message = redactSecrets(error.message, secrets);
    if (message !== error.message) Object.defineProperty(error, 'message', { value: message, configurable: true, writable: true });
  }
  return error;
}
