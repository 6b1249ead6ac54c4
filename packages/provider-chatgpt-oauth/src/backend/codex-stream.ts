import { StreamError } from '@toolwire/core';
import type { ChatStreamEvent, FinishReason, ProviderMetadata, Usage } from '@toolwire/core';

import { isRecord } from '../auth/jwt.ts';
import { PROVIDER_NAME } from '../constants.ts';
import { toToolCall } from '../tools/map-tool-calls.ts';
import type { ToolMapping } from '../tools/wire-tool.ts';
import { streamFailureError } from './backend-errors.ts';
import { mergeRateLimits, parseRateLimitEvent } from './rate-limits.ts';
import type { ChatGPTRateLimits } from './rate-limits.ts';

/** Turns the backend's stream events (parsed `data:` JSON) into core stream events. */
export interface CodexStreamDecoder {
  push(event: Record<string, unknown>): ChatStreamEvent[];
  /** Call when the HTTP body ended: an error event if the response never completed. */
  end(): ChatStreamEvent[];
  /** True once `response.completed`, `.incomplete`, `.failed` or `error` arrived. */
  readonly finished: boolean;
}

interface PendingCall {
  callId: string;
  wireName: string;
  arguments: string;
  /** Whether `tool-call-start` was emitted (deferred for codex-mode `shell`, whose target is known only at the end). */
  started: boolean;
  userName: string;
}

/**
 * Creates a decoder for one response. `metadata` (conversation id, request id, header
 * rate limits) is carried into the `finish` event's `providerMetadata.chatgpt`, together
 * with the response id, the `codex.rate_limits` snapshot, the reasoning items to replay
 * and the wire form of each tool call.
 */
export function createCodexStreamDecoder(options: {
  mapping: ToolMapping;
  modelId: string;
  metadata: { conversationId: string; requestId?: string; rateLimits?: ChatGPTRateLimits };
}): CodexStreamDecoder {
  const { mapping } = options;
  const calls = new Map<string, PendingCall>();
  const textSeen = new Set<string>();
  const reasoningItems: Record<string, unknown>[] = [];
  const wireCalls: Record<string, { name: string; arguments: string }> = {};
  let toolCallCount = 0;
  let responseId: string | undefined;
  let modelId = options.modelId;
  let rateLimits = options.metadata.rateLimits;
  let lastReasoningKey: string | undefined;
  let finished = false;

  function providerMetadata(): ProviderMetadata {
    const chatgpt: Record<string, unknown> = { conversationId: options.metadata.conversationId };
    if (responseId !== undefined) chatgpt.responseId = responseId;
    if (options.metadata.requestId !== undefined) chatgpt.requestId = options.metadata.requestId;
    if (rateLimits !== undefined) chatgpt.rateLimits = rateLimits;
    if (reasoningItems.length > 0) chatgpt.reasoningItems = reasoningItems;
    if (toolCallCount > 0) chatgpt.wireCalls = wireCalls;
    return { [PROVIDER_NAME]: chatgpt };
  }

  function finish(finishReason: FinishReason, response: Record<string, unknown>): ChatStreamEvent {
    finished = true;
    const usage = readUsage(response.usage);
    return {
      type: 'finish',
      finishReason,
      ...(usage ? { usage } : {}),
      ...(responseId !== undefined ? { responseId } : {}),
      modelId,
      providerMetadata: providerMetadata(),
    };
  }

  function reasoningDelta(key: string, delta: unknown): ChatStreamEvent[] {
    if (typeof delta !== 'string' || delta === '') return [];
    const separator = lastReasoningKey !== undefined && lastReasoningKey !== key ? '\n\n' : '';
    lastReasoningKey = key;
    return [{ type: 'reasoning-delta', delta: separator + delta }];
  }

  function completeCall(itemId: string, item: Record<string, unknown>): ChatStreamEvent[] {
    const pending = calls.get(itemId) ?? startCall(itemId, item);
    calls.delete(itemId);
    if (typeof item.arguments === 'string') pending.arguments = item.arguments;
    const toolCall = toToolCall(mapping, { callId: pending.callId, name: pending.wireName, arguments: pending.arguments });
    wireCalls[pending.callId] = { name: pending.wireName, arguments: pending.arguments };
    toolCallCount++;
    const events: ChatStreamEvent[] = [];
    if (!pending.started) {
      events.push({ type: 'tool-call-start', id: toolCall.id, name: toolCall.name });
      events.push({ type: 'tool-call-delta', id: toolCall.id, argumentsDelta: toolCall.invalid?.rawArguments ?? JSON.stringify(toolCall.arguments) });
    }
    events.push({ type: 'tool-call', toolCall });
    return events;
  }

  function startCall(itemId: string, item: Record<string, unknown>): PendingCall {
    const wireName = typeof item.name === 'string' ? item.name : '';
    const callId = typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : itemId;
    const deferred = mapping.mode === 'codex' && wireName === 'shell';
    const pending: PendingCall = {
      callId,
      wireName,
      arguments: typeof item.arguments === 'string' ? item.arguments : '',
      started: !deferred,
      userName: mapping.toUser.get(wireName) ?? wireName,
    };
    calls.set(itemId, pending);
    return pending;
  }

  return {
    get finished() {
      return finished;
    },

    push(event) {
      if (finished) return [];
      const type = typeof event.type === 'string' ? event.type : '';
      switch (type) {
        case 'response.created':
        case 'response.in_progress': {
          const response = isRecord(event.response) ? event.response : {};
          if (typeof response.id === 'string') responseId = response.id;
          if (typeof response.model === 'string') modelId = response.model;
          return [];
        }
        case 'response.output_item.added': {
          const item = isRecord(event.item) ? event.item : {};
          if (item.type !== 'function_call' || typeof item.id !== 'string') return [];
          const pending = startCall(item.id, item);
          return pending.started ? [{ type: 'tool-call-start', id: pending.callId, name: pending.userName }] : [];
        }
        case 'response.function_call_arguments.delta': {
          const pending = typeof event.item_id === 'string' ? calls.get(event.item_id) : undefined;
          if (pending === undefined || typeof event.delta !== 'string') return [];
          pending.arguments += event.delta;
          return pending.started ? [{ type: 'tool-call-delta', id: pending.callId, argumentsDelta: event.delta }] : [];
        }
        case 'response.output_text.delta':
          if (typeof event.item_id === 'string') textSeen.add(event.item_id);
          return typeof event.delta === 'string' && event.delta !== '' ? [{ type: 'text-delta', delta: event.delta }] : [];
        case 'response.reasoning_summary_text.delta':
          return reasoningDelta(`${String(event.item_id)}:s${String(event.summary_index)}`, event.delta);
        case 'response.reasoning_text.delta':
          return reasoningDelta(`${String(event.item_id)}:c${String(event.content_index)}`, event.delta);
        case 'response.output_item.done': {
          const item = isRecord(event.item) ? event.item : {};
          const itemId = typeof item.id === 'string' ? item.id : '';
          switch (item.type) {
            case 'function_call':
              return completeCall(itemId, item);
            case 'reasoning': {
              if (typeof item.encrypted_content === 'string') {
                const { id: _id, ...replayable } = item;
                reasoningItems.push(replayable);
              }
              return [];
            }
            case 'message':
              return textSeen.has(itemId) ? [] : messageText(item);
            case 'local_shell_call':
            case 'custom_tool_call':
              return [
                {
                  type: 'warning',
                  warning: { type: 'other', message: `The model returned a ${item.type} item, which this provider does not run; it was ignored.` },
                },
              ];
            default:
              return [];
          }
        }
        case 'codex.rate_limits':
          rateLimits = mergeRateLimits(rateLimits, parseRateLimitEvent(event));
          return [];
        case 'response.completed': {
          const response = isRecord(event.response) ? event.response : {};
          if (typeof response.id === 'string') responseId = response.id;
          return [finish(toolCallCount > 0 ? 'tool-calls' : 'stop', response)];
        }
        case 'response.incomplete': {
          const response = isRecord(event.response) ? event.response : {};
          const details = isRecord(response.incomplete_details) ? response.incomplete_details : {};
          const reason: FinishReason =
            details.reason === 'max_output_tokens'
              ? 'length'
              : details.reason === 'content_filter'
                ? 'content-filter'
                : toolCallCount > 0
                  ? 'tool-calls'
                  : 'other';
          return [finish(reason, response)];
        }
        case 'response.failed': {
          finished = true;
          const response = isRecord(event.response) ? event.response : {};
          return [{ type: 'error', error: streamFailureError(response.error) }];
        }
        case 'error':
          finished = true;
          return [{ type: 'error', error: streamFailureError(isRecord(event.error) ? event.error : event) }];
        default:
          return [];
      }
    },

    end() {
      if (finished) return [];
      finished = true;
      return [
        {
          type: 'error',
          error: new StreamError({
            provider: PROVIDER_NAME,
            retryable: true,
            message: 'The ChatGPT stream closed before response.completed. The connection dropped or the backend gave up; send the request again.',
          }),
        },
      ];
    },
  };
}

function messageText(item: Record<string, unknown>): ChatStreamEvent[] {
  if (!Array.isArray(item.content)) return [];
  let text = '';
  for (const part of item.content as unknown[]) {
    if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text !== '' ? [{ type: 'text-delta', delta: text }] : [];
}

function readUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const inputTokens = typeof raw.input_tokens === 'number' ? raw.input_tokens : 0;
  const outputTokens = typeof raw.output_tokens === 'number' ? raw.output_tokens : 0;
  const usage: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: typeof raw.total_tokens === 'number' ? raw.total_tokens : inputTokens + outputTokens,
  };
  const cached = isRecord(raw.input_tokens_details) ? raw.input_tokens_details.cached_tokens : undefined;
  if (typeof cached === 'number') usage.cachedInputTokens = cached;
  const reasoning = isRecord(raw.output_tokens_details) ? raw.output_tokens_details.reasoning_tokens : undefined;
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning;
  return usage;
}
