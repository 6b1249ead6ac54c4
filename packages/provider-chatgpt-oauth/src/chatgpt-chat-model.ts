
import { AnswerLimit, collectStream, ProviderError, ProviderUnavailableError, StreamError, UpstreamTimeoutError } from '@toolwire/core';
import type { AnswerLimits, ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, Warning } from '@toolwire/core';
import { guardStream, redactErrorSecrets } from '@toolwire/core/provider';
import { createStrictCallRestorer, restoreEventCall } from '@toolwire/openai-responses';

import type { ChatGPTAuth, ChatGPTCredentials } from './auth/chatgpt-auth.ts';
import type { ModelCatalog, ResolvedInstructions } from './backend/model-catalog.ts';
import { deriveConversationId } from './backend/conversation-id.ts';
import { parseRateLimitHeaders } from './backend/rate-limits.ts';
import { backendHeaders } from './backend/request-headers.ts';
import type { ChatGPTResidency } from './backend/request-headers.ts';
import { buildChatGPTRequest } from './chatgpt-chat-request.ts';
import type { PreparedRequest } from './chatgpt-chat-request.ts';
import { createChatGPTStreamDecoder, decodeChatGPTStream, STREAM_DROPPED } from './chatgpt-chat-stream.ts';
import { resolveSettings } from './chatgpt-settings.ts';
import type { ChatGPTChatSettings } from './chatgpt-settings.ts';
import { PROVIDER_NAME } from './constants.ts';
import { boundedSecretFreeText, readBoundedText, redactSecrets, secretRedactor } from './secret-text.ts';
import type { ChatGPTLogger } from './logger.ts';
import { backendError } from './map-chatgpt-error.ts';
import { trimTrailingSlashes } from './url.ts';
import { pause } from './pause.ts';

/** What every model of one `createChatGPT` shares. */
export interface ChatGPTModelContext {
  auth: ChatGPTAuth;
  baseURL: string;
  fetch: typeof globalThis.fetch;
  catalog: ModelCatalog;
  clientVersion: string;
  logger: ChatGPTLogger;
  /** Retries of 5xx and dropped connections before the response started. */
  maxRetries: number;
  /** A stream silent this long is dropped. */
  streamIdleTimeoutMs: number;
  /** How often a dropped stream is sent again while nothing of it reached the caller. */
  streamMaxRetries: number;
  residency: ChatGPTResidency | undefined;
  headers: Record<string, string>;
  /** Tool names already reported through the logger as left out (one console warning each). */
  reportedLeftOut: Set<string>;
  /** The bounds on one answer (`maxAnswerChars`, `maxToolCallsPerAnswer`); 0: none. */
  answerLimits: AnswerLimits;
}

/** How `createChatGPT`'s answer bounds are named in their errors. */
const ANSWER_SETTINGS = { chars: 'the maxAnswerChars option of createChatGPT', toolCalls: 'the maxToolCallsPerAnswer option of createChatGPT' };

/** A model served by the Codex backend (`chatgpt.chat(modelId)`). */
export function createChatGPTChatModel(modelId: string, settings: ChatGPTChatSettings, context: ChatGPTModelContext): ChatModel {
  const model: ChatModel = {
    provider: PROVIDER_NAME,
    modelId,
    generate(request: ChatRequest): Promise<ChatResponse> {
      return collectStream(model.stream(request));
    },
    stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      return guardStream(streamResponse(modelId, settings, context, request), { provider: PROVIDER_NAME });
    },
  };
  return model;
}

/** Events that show the caller part of the answer: after one of them a dropped stream cannot be sent again unseen. */
function isContent(event: ChatStreamEvent): boolean {
  return event.type !== 'warning' && event.type !== 'error' && event.type !== 'finish';
}

function isDropped(event: ChatStreamEvent): boolean {
  return event.type === 'error' && StreamError.isInstance(event.error) && event.error.code === STREAM_DROPPED;
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
  const dryRun = buildChatGPTRequest({ modelId, request, settings, instructions: '', conversationId });
  reportLeftOut(dryRun, context);

  let credentials = await context.auth.getCredentials(signal);
  // Every access token this request used, so none of them can leak through an error.
  const secrets = [credentials.accessToken];
  try {
    // The catalog gives the base instructions and the model's reasoning levels.
    const catalog: ResolvedInstructions = await context.catalog.instructionsFor(modelId, credentials, signal);
    const build = (instructions: string, overrides: Partial<ChatGPTChatSettings> = {}): PreparedRequest =>
      buildChatGPTRequest({ modelId, request, settings: { ...settings, ...overrides }, instructions, conversationId, model: catalog.model });
    let prepared = build(settings.instructions ?? catalog.instructions);
    const extraWarnings: Warning[] = [];

    const open = async (): Promise<Response> => {
      let response = await post(prepared.body);
      if (response.status === 401) {
        await response.body?.cancel();
        credentials = await context.auth.refreshAfterUnauthorized(credentials.accessToken, signal);
        secrets.push(credentials.accessToken);
        response = await post(prepared.body);
      }
      if (response.status === 400 && settings.instructions !== undefined && extraWarnings.length === 0) {
        const text = await readErrorText(response, signal);
        if (!text.includes('Instructions are not valid')) throw failure(response, text);
        prepared = build(catalog.instructions, { instructions: catalog.instructions });
        extraWarnings.push({
          type: 'unsupported-setting',
          setting: 'instructions',
          message: 'The backend answered "Instructions are not valid" to the custom instructions; the model\'s base instructions were sent instead. Put your guidance in a system message.',
        });
        response = await post(prepared.body);
      }
      if (!response.ok) throw failure(response, await readErrorText(response, signal));
      // A page or JSON with status 200 (a proxy, a captive portal) is no stream: said as
      // what it is, not taken for a dropped stream and sent again.
      // Only these explicit types: a body without one, or `text/plain`, is still read as a stream.
      const type = response.headers.get('content-type');
      if (type !== null && isPageOrJson(type)) {
        const text = (await readErrorText(response, signal)).trim();
        throw new ProviderError({
          provider: PROVIDER_NAME,
          status: response.status,
          code: 'not_event_stream',
          message:
            `The ChatGPT backend at ${context.baseURL} answered with ${type.split(';')[0] ?? type} instead of an event stream` +
            `${text !== '' ? ` (${boundedSecretFreeText(text, secrets, 200)})` : ''}. A proxy or a network sign-in page may be in the way: check the network and baseURL.`,
        });
      }
      if (response.body === null) {
        throw new StreamError({ provider: PROVIDER_NAME, message: 'The ChatGPT backend answered without a body. Send the request again.' });
      }
      return response;
    };

    // Strict tools answer optional parameters with null; the caller gets them left out again.
    const restore = createStrictCallRestorer(request.tools);
    let response = await open();
    for (const warning of [...prepared.warnings, ...extraWarnings]) yield { type: 'warning', warning };

    // A dropped or silent stream is sent again, a bounded number of times, as Codex does
    // (openai/codex, codex-rs/core/src/codex.rs, the `stream_max_retries` loop of a turn) —
    // but only while none of it reached the caller, who cannot un-see streamed text.
    for (let attempt = 0; ; attempt++) {
      const requestId = response.headers.get('x-request-id') ?? response.headers.get('x-oai-request-id') ?? undefined;
      const rateLimits = parseRateLimitHeaders(response.headers);
      const decoder = createChatGPTStreamDecoder({
        mapping: prepared.mapping,
        modelId,
        metadata: { conversationId, ...(requestId !== undefined ? { requestId } : {}), ...(rateLimits !== undefined ? { rateLimits } : {}) },
        ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
        ...(context.answerLimits.maxChars > 0 || context.answerLimits.maxToolCalls > 0
          ? { answerLimit: new AnswerLimit({ ...context.answerLimits, settings: ANSWER_SETTINGS, provider: PROVIDER_NAME }) }
          : {}),
      });
      let delivered = false;
      let retry = false;
      for await (const event of decodeChatGPTStream(response.body as ReadableStream<Uint8Array>, decoder, { signal, idleTimeoutMs: context.streamIdleTimeoutMs })) {
        if (isDropped(event) && !delivered && attempt < context.streamMaxRetries) {
          retry = true;
          break;
        }
        if (isContent(event)) delivered = true;
        // A failure the stream reports (`response.failed`, `error`) is yielded, not thrown:
        // it gets the same redaction as a thrown error.
        if (event.type === 'error') redact(event.error, secrets);
        yield restoreEventCall(event, restore);
      }
      if (!retry) return;
      context.logger.debug?.(`The ChatGPT stream dropped before any output; sending the request again (retry ${attempt + 1} of ${context.streamMaxRetries}).`);
      await pause(backoffMs(attempt), signal);
      response = await open();
    }
  } catch (error) {
    throw redact(error, secrets);
  }

  async function post(body: Record<string, unknown>): Promise<Response> {
    const url = `${trimTrailingSlashes(context.baseURL)}/codex/responses`;
    // Headers (not an object spread) so that the caller's headers cannot add a second
    // `Authorization` in another letter case.
    const headers = new Headers(context.headers);
    for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
    const codexHeaders = backendHeaders({ credentials, sessionId: conversationId, clientVersion: context.clientVersion, residency: context.residency });
    for (const [name, value] of Object.entries(codexHeaders)) headers.set(name, value);
    headers.set('content-type', 'application/json');
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await context.fetch(url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
      } catch (error) {
        // The backend was reached and answered nothing within the fetch's idle timeout: a retry would wait as long again.
        if (signal?.aborted || UpstreamTimeoutError.isInstance(error)) throw error;
        if (attempt < context.maxRetries) {
          await pause(backoffMs(attempt), signal);
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
        await pause(backoffMs(attempt), signal);
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

/**
 * An error body or a page, read for the message only: when the connection breaks while it is
 * read (a reset after the headers), the status already says what happened, so the error
 * reports it (without the body) instead of the socket's bare `aborted`, which the
 * caller could only take for an internal failure.
 */
async function readErrorText(response: Response, signal: AbortSignal | undefined): Promise<string> {
  try {
    return (await readBoundedText(response)).text;
  } catch (error) {
    if (signal?.aborted === true) throw error;
    return '';
  }
}

function backoffMs(attempt: number): number {
  return 250 * 2 ** attempt + Math.floor(Math.random() * 100);
}

/**
 * Errors never carry the access token, even when something upstream echoed it (in any
 * spelling): neither in the message nor in the stack, which was captured with the message
 * (a CLI's `--debug`, a logger printing `error.stack`), nor in the data the error carries.
 */
function redact(error: unknown, secrets: readonly string[]): unknown {
  return redactErrorSecrets(error, secretRedactor(secrets));
}

/** A page or a JSON document: a 200 with one of these is no event stream. */
function isPageOrJson(contentType: string): boolean {
  const type = contentType.toLowerCase().trimStart();
  return type.startsWith('text/html') || type.startsWith('application/json') || /^application\/[^;]*\+json/.test(type);
}
