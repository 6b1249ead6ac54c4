import { StreamError } from '@toolwire/core';
import type { ChatStreamEvent, Usage } from '@toolwire/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { mapChatFinishReason } from './openai-chat-finish-reason.ts';
import { droppedCallsWarning } from '@toolwire/openai-responses';
import { argumentsText, readReasoning } from './openai-chat-response.ts';
import { mapChatUsage } from './openai-usage.ts';
import { toToolCall } from '@toolwire/core/provider';

/** Options of `createChatStreamMapper`. */
export interface ChatStreamMapperOptions {
  /** `false` keeps only the first call (its events only), with a warning. */
  parallelToolCalls?: boolean;
  /** Makes ids for calls a server sent without one. */
  generateId: () => string;
}

/** Turns Chat Completions chunks into core stream events; feed every chunk, then call `end()`. */
export interface ChatStreamMapper {
  push(chunk: ChatCompletionChunk): ChatStreamEvent[];
  /**
   * `push` of a plain text chunk of this stream (one choice, a delta of `content` only, no
   * finish, no usage; its id and model those of a chunk pushed before): its event, if any.
   */
  pushText(content: string): ChatStreamEvent | undefined;
  /** The closing events: `finish`, or an `error` when the stream ended without a finish reason. */
  end(): ChatStreamEvent[];
}

interface CallState {
  /** Order of first appearance; calls are finished in this order. */
  position: number;
  id: string | undefined;
  name: string | undefined;
  args: string;
  started: boolean;
}

type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

/**
 * Creates the stateful chunk mapper of a streamed Chat Completions call. Tool-call
 * fragments are assembled by `index` (interleaved fragments of parallel calls included);
 * `tool-call-start` comes once a call's name is known, `tool-call-delta` per fragment, and
 * the finished `tool-call`s only at the finish reason: never because partial arguments
 * happen to parse as JSON (the AI SDK shipped that bug twice, research/ai-sdk.md §2).
 */
export function createChatStreamMapper(options: ChatStreamMapperOptions): ChatStreamMapper {
  const byKey = new Map<number, CallState>();
  const calls: CallState[] = [];
  let last: CallState | undefined;
  // Keys for calls without a usable index; real indexes are never negative.
  let syntheticKey = -1;
  let rawFinish: string | undefined;
  let usage: Usage | undefined;
  let responseId: string | undefined;
  let modelId: string | undefined;
  let refusal = '';
  const keepAll = options.parallelToolCalls !== false;

  function newCall(key: number): CallState {
    const call: CallState = { position: calls.length, id: undefined, name: undefined, args: '', started: false };
    byKey.set(key, call);
    calls.push(call);
    return call;
  }

  function callFor(delta: ToolCallDelta): CallState {
    const id = delta.id ?? undefined;
    if (typeof delta.index === 'number') {
      const known = byKey.get(delta.index);
      // Some servers (Ollama, research/openai-compat.md §4) give every call index 0: a new id is a new call.
      if (!known || (id !== undefined && id !== '' && known.id !== undefined && known.id !== id)) {
        return newCall(delta.index);
      }
      return known;
    }
    // No index at all (old Ollama): a fragment with an id or a name starts a call, the rest continue the last one.
    if (id !== undefined && id !== '') {
      const sameId = calls.find((call) => call.id === id);
      if (sameId) return sameId;
      return newCall(syntheticKey--);
    }
    if (last && delta.function?.name == null) return last;
    return newCall(syntheticKey--);
  }

  function onToolCallDelta(delta: ToolCallDelta, out: ChatStreamEvent[]): void {
    const call = callFor(delta);
    last = call;
    if (call.id === undefined && delta.id) call.id = delta.id;
    // A name repeated in every delta is assigned, not concatenated (get_timeget_time).
    const name = delta.function?.name;
    if (call.name === undefined && typeof name === 'string' && name !== '') call.name = name;
    const fragment = argumentsText(delta.function?.arguments);
    const visible = keepAll || call.position === 0;
    if (!call.started) {
      call.args += fragment;
      if (call.name === undefined) return;
      call.started = true;
      call.id ??= options.generateId();
      if (visible) {
        out.push({ type: 'tool-call-start', id: call.id, name: call.name });
        if (call.args !== '') out.push({ type: 'tool-call-delta', id: call.id, argumentsDelta: call.args });
      }
      return;
    }
    if (fragment === '') return;
    call.args += fragment;
    if (visible && call.id !== undefined) out.push({ type: 'tool-call-delta', id: call.id, argumentsDelta: fragment });
  }

  function finishCalls(out: ChatStreamEvent[]): void {
    const started = calls.filter((call) => call.started);
    const kept = keepAll ? started : started.slice(0, 1);
    const lastPosition = started.length > 0 ? started[started.length - 1]?.position : undefined;
    for (const call of kept) {
      out.push({
        type: 'tool-call',
        toolCall: toToolCall({
          id: call.id ?? options.generateId(),
          name: call.name ?? '',
          rawArguments: call.args,
          truncated: rawFinish === 'length' && call.position === lastPosition,
        }),
      });
    }
    if (calls.length > started.length) {
      out.push({ type: 'warning', warning: { type: 'other', message: 'A streamed tool call without a name was dropped.' } });
    }
  }

  return {
    push(chunk) {
      const out: ChatStreamEvent[] = [];
      responseId ??= chunk.id;
      modelId ??= chunk.model;
      if (chunk.usage) usage = mapChatUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice || rawFinish !== undefined) return out;
      const delta = choice.delta as ChatCompletionChunk.Choice.Delta | undefined;
      if (delta) {
        const reasoning = readReasoning(delta);
        if (reasoning !== undefined && reasoning !== '') out.push({ type: 'reasoning-delta', delta: reasoning });
        if (typeof delta.content === 'string' && delta.content !== '') out.push({ type: 'text-delta', delta: delta.content });
        if (typeof delta.refusal === 'string') refusal += delta.refusal;
        if (delta.tool_calls) for (const toolCallDelta of delta.tool_calls) onToolCallDelta(toolCallDelta, out);
      }
      if (choice.finish_reason) {
        rawFinish = choice.finish_reason;
        finishCalls(out);
      }
      return out;
    },
    pushText(content) {
      if (rawFinish !== undefined || content === '') return undefined;
      return { type: 'text-delta', delta: content };
    },
    end() {
      if (rawFinish === undefined) {
        return [
          {
            type: 'error',
            error: new StreamError({
              provider: 'openai',
              message:
                'The Chat Completions stream ended without a finish reason, so the answer may be incomplete. ' +
                'Retry the request; if it keeps happening, the server or a proxy is cutting the stream.',
            }),
          },
        ];
      }
      const out: ChatStreamEvent[] = [];
      const startedCount = calls.filter((call) => call.started).length;
      if (!keepAll && startedCount > 1) out.push({ type: 'warning', warning: droppedCallsWarning(startedCount - 1) });
      const finishReason = mapChatFinishReason(rawFinish, startedCount > 0);
      out.push({
        type: 'finish',
        finishReason,
        ...(usage ? { usage } : {}),
        ...(responseId !== undefined ? { responseId } : {}),
        ...(modelId !== undefined ? { modelId } : {}),
        ...(refusal !== '' ? { providerMetadata: { openai: { refusal } } } : {}),
      });
      return out;
    },
  };
}
