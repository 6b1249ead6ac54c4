import { StreamError, UpstreamMessageTooLargeError } from '@toolwire/core';
import type { AnswerLimit } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import { Utf8ChunkDecoder } from '@toolwire/core/provider';
import { createResponsesStreamDecoder } from '@toolwire/openai-responses';
import type { ResponsesStreamDecoder } from '@toolwire/openai-responses';
import { createParser } from 'eventsource-parser';

import { isRecord } from './auth/jwt.ts';
import { mergeRateLimits, parseRateLimitEvent } from './backend/rate-limits.ts';
import type { ChatGPTRateLimits } from './backend/rate-limits.ts';
import { PROVIDER_NAME } from './constants.ts';
import { streamFailureError } from './map-chatgpt-error.ts';
import { callMappingFor } from './tools/map-tool-calls.ts';
import type { ToolMapping } from './tools/wire-tool.ts';

/**
 * The decoder of one backend answer: the shared Responses decoder with the Codex
 * differences (tool names mapped per the tool mode, wire calls recorded for exact replay,
 * `codex.rate_limits` events, usage-limit failures). `metadata` (conversation id, request
 * id, header rate limits) goes into the finish event's `providerMetadata.chatgpt`.
 */
export function createChatGPTStreamDecoder(options: {
  mapping: ToolMapping;
  modelId: string;
  metadata: { conversationId: string; requestId?: string; rateLimits?: ChatGPTRateLimits };
  parallelToolCalls?: boolean;
  /** Counts the answer; the decoder throws its `AnswerTooLargeError` past a bound. */
  answerLimit?: AnswerLimit | undefined;
}): ResponsesStreamDecoder {
  let rateLimits = options.metadata.rateLimits;
  return createResponsesStreamDecoder({
    provider: PROVIDER_NAME,
    metadataKey: PROVIDER_NAME,
    modelId: options.modelId,
    callMapping: callMappingFor(options.mapping),
    recordWireCalls: true,
    answerLimit: options.answerLimit,
    ...(options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
    metadata: () => ({
      conversationId: options.metadata.conversationId,
      ...(options.metadata.requestId !== undefined ? { requestId: options.metadata.requestId } : {}),
      ...(rateLimits !== undefined ? { rateLimits } : {}),
    }),
    onOtherEvent: (event) => {
      if (event['type'] === 'codex.rate_limits') rateLimits = mergeRateLimits(rateLimits, parseRateLimitEvent(event));
    },
    mapFailure: (error) => streamFailureError(error),
  });
}

/** Codex's default: a stream silent this long is dropped (openai/codex, codex-rs/core/src/model_provider_info.rs, `DEFAULT_STREAM_IDLE_TIMEOUT_MS`). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;

/** Codex's default number of stream retries (same file, `DEFAULT_STREAM_MAX_RETRIES`). */
export const DEFAULT_STREAM_MAX_RETRIES = 5;

/** The `code` of the `StreamError` a stream that broke off or went silent ends with; such a stream may be sent again. */
export const STREAM_DROPPED = 'stream_dropped';

/**
 * Reads the SSE body and yields the decoder's events. A stream that breaks off, goes
 * silent for `idleTimeoutMs`, or closes before `response.completed` ends with a retryable
 * `StreamError` (code `stream_dropped`); an abort is thrown as the signal's reason, and a
 * message past the fetch's limit as its `UpstreamMessageTooLargeError`.
 */
export async function* decodeChatGPTStream(
  body: ReadableStream<Uint8Array>,
  decoder: ResponsesStreamDecoder,
  options: { signal?: AbortSignal | undefined; idleTimeoutMs: number },
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
      if (!isRecord(data)) return;
      for (const part of decoder.push(data.type === undefined && message.event !== undefined ? { ...data, type: message.event } : data)) {
        // The Codex backend has no provider-executed tools, so there are no provider outputs to resolve.
        if (part.type !== 'provider-output') pending.push(part);
      }
    },
  });
  const reader = body.getReader();
  // No native converter per stream (a `TextDecoder` keeps one for the stream's life).
  const text = new Utf8ChunkDecoder();
  const dropped = (message: string, cause?: unknown): ChatStreamEvent => ({
    type: 'error',
    error: new StreamError({ provider: PROVIDER_NAME, code: STREAM_DROPPED, retryable: true, message, ...(cause !== undefined ? { cause } : {}) }),
  });
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array> | 'idle';
      try {
        chunk = await readWithIdleTimeout(reader, options.idleTimeoutMs);
      } catch (error) {
        // Not a dropped stream: sent again, it would meet the same message.
        if (options.signal?.aborted === true || UpstreamMessageTooLargeError.isInstance(error)) throw error;
        yield* pending;
        yield dropped(`The ChatGPT stream broke off: ${error instanceof Error ? error.message : String(error)}. Send the request again.`, error);
        return;
      }
      if (chunk === 'idle') {
        yield* pending;
        yield dropped(`The ChatGPT stream sent nothing for ${Math.round(options.idleTimeoutMs / 1000)} s and was dropped (streamIdleTimeoutMs). Send the request again.`);
        return;
      }
      if (chunk.done) break;
      parser.feed(text.decode(chunk.value));
      const events = pending;
      pending = [];
      for (const event of events) {
        yield event;
        if (event.type === 'error') return;
        options.signal?.throwIfAborted();
      }
      if (decoder.finished) return;
    }
    yield* pending;
    if (!decoder.finished) {
      decoder.end();
      yield dropped('The ChatGPT stream closed before response.completed. The connection dropped or the backend gave up; send the request again.');
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** One `read()`, or `'idle'` when nothing arrives within `ms`. */
async function readWithIdleTimeout(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<ReadableStreamReadResult<Uint8Array> | 'idle'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<'idle'>((resolve) => {
    timer = setTimeout(() => resolve('idle'), ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}
