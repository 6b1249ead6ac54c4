import { StreamError } from './errors.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';
import type { FinishReason } from './types/finish-reason.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolResult } from './types/tool-result.ts';
import type { Usage } from './types/usage.ts';
import type { Warning } from './types/warning.ts';
import type { ProviderMetadata } from './types/provider-metadata.ts';

/**
 * Consumes a stream of `ChatStreamEvent`s and returns the same `ChatResponse` that
 * `generate` would. Throws the stream's `error` event, and a `StreamError` when the
 * stream ends without a `finish` event.
 *
 * @example const response = await collectStream(model.stream(request));
 */
export async function collectStream(events: AsyncIterable<ChatStreamEvent>): Promise<ChatResponse> {
  const collector = createResponseCollector();
  for await (const event of events) collector.add(event);
  return collector.response();
}

/** Builds a `ChatResponse` event by event (what `collectStream` does, for loops that drive the stream themselves). */
export interface ResponseCollector {
  /** Takes the next event; throws the error of an `error` event. */
  add(event: ChatStreamEvent): void;
  /** The response; throws a `StreamError` when no `finish` event came. */
  response(): ChatResponse;
}

// Deltas are joined in batches of this many. `text += delta` for every delta keeps one rope
// node (32 bytes) per token alive for as long as the stream is open, several times the text.
const DELTA_BATCH = 64;

/** Text built from many small deltas without a rope node per delta. */
class TextBuilder {
  #text = '';
  #parts: string[] = [];

  add(delta: string): void {
    this.#parts.push(delta);
    if (this.#parts.length < DELTA_BATCH) return;
    this.#text += this.#parts.join('');
    this.#parts.length = 0;
  }

  toString(): string {
    if (this.#parts.length > 0) {
      this.#text += this.#parts.join('');
      this.#parts.length = 0;
    }
    return this.#text;
  }
}

/** Creates an empty `ResponseCollector`. */
export function createResponseCollector(): ResponseCollector {
  const textBuilder = new TextBuilder();
  const reasoningBuilder = new TextBuilder();
  const toolCalls: ToolCall[] = [];
  const toolResults: ToolResult[] = [];
  const warnings: Warning[] = [];
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  let responseId: string | undefined;
  let modelId: string | undefined;
  let providerMetadata: ProviderMetadata | undefined;

  return {
    add(event) {
      switch (event.type) {
        case 'text-delta':
          textBuilder.add(event.delta);
          break;
        case 'reasoning-delta':
          reasoningBuilder.add(event.delta);
          break;
        case 'tool-call':
          toolCalls.push(event.toolCall);
          break;
        case 'tool-result':
          toolResults.push(event.result);
          break;
        case 'warning':
          warnings.push(event.warning);
          break;
        case 'finish':
          finishReason = event.finishReason;
          usage = event.usage;
          responseId = event.responseId;
          modelId = event.modelId;
          providerMetadata = event.providerMetadata;
          break;
        case 'error':
          throw event.error;
        case 'tool-call-start':
        case 'tool-call-delta':
          break;
        default: {
          const unexpected: never = event;
          throw new StreamError({ provider: 'unknown', message: `Unknown stream event ${JSON.stringify(unexpected)}` });
        }
      }
    },
    response() {
      if (finishReason === undefined) {
        throw new StreamError({ provider: 'unknown', message: 'The stream ended without a finish event.' });
      }
      const text = textBuilder.toString();
      const reasoning = reasoningBuilder.toString();
      const response: ChatResponse = {
        text,
        toolCalls,
        toolResults,
        finishReason,
        warnings,
        message: {
          role: 'assistant',
          content: text,
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(toolResults.length > 0 ? { toolResults } : {}),
          ...(reasoning !== '' ? { reasoning } : {}),
          ...(providerMetadata ? { providerMetadata } : {}),
        },
      };
      if (reasoning !== '') response.reasoning = reasoning;
      if (usage) response.usage = usage;
      if (responseId !== undefined) response.responseId = responseId;
      if (modelId !== undefined) response.modelId = modelId;
      if (providerMetadata) response.providerMetadata = providerMetadata;
      return response;
    },
  };
}
