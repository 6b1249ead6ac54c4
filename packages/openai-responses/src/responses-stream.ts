import { generateId, StreamError } from '@toolwire/core';
import type { AnswerLimit, ChatStreamEvent, ProviderError, ProviderMetadata, ToolCall } from '@toolwire/core';
import { mapProviderError, toToolCall } from '@toolwire/core/provider';
import type { ProviderErrorHints } from '@toolwire/core/provider';
import { droppedCallsWarning } from './dropped-calls-warning.ts';
import { mapResponsesFinishReason } from './responses-finish-reason.ts';
import { replayableReasoningItem } from './responses-reasoning.ts';
import type { ResponsesCallMapping } from './responses-call-mapping.ts';
import type { ResolvedProviderTool } from './responses-tools.ts';
import { findProviderTool } from './responses-tools.ts';
import { mapResponsesUsage } from './responses-usage.ts';
import { isRecord } from './responses-wire.ts';
import type { ResponsesStreamEvent } from './responses-wire.ts';
import { providerCallArguments } from './provider-tool-output.ts';
import type { ProviderToolOutput } from './provider-tool-output.ts';

/**
 * What the decoder emits: core events, plus `provider-output` parts (one per
 * provider-executed call, right before `finish` once the response has completed) that the
 * provider turns into `tool-result`s through the tool's `handleProviderOutput`.
 */
export type ResponsesStreamPart =
  | ChatStreamEvent
  | { type: 'provider-output'; output: ProviderToolOutput; annotations: readonly unknown[] };

/** Options of `createResponsesStreamDecoder`. */
export interface ResponsesStreamDecoderOptions {
  /** The provider name on errors, e.g. `openai`. */
  provider: string;
  /** The `providerMetadata` key of the finish event (`openai`, `chatgpt`). */
  metadataKey: string;
  /** The requested model, used until the stream names its own. */
  modelId?: string;
  providerTools?: readonly ResolvedProviderTool[];
  /** `false` keeps only the first function call (its events only), with a warning. */
  parallelToolCalls?: boolean;
  /** Codex: wire names to the caller's tools (`shell` → `bash`); default: names as they are. */
  callMapping?: ResponsesCallMapping;
  /** Record each call's wire name and argument text in `providerMetadata[key].wireCalls`, for exact replay. */
  recordWireCalls?: boolean;
  /** More fields for `providerMetadata[key]` at finish (request id, rate limits). */
  metadata?: () => Record<string, unknown>;
  /** Events the decoder does not know (`codex.rate_limits`). */
  onOtherEvent?: (event: Record<string, unknown>) => void;
  /** Turns a `response.failed` / `error` payload into an error; default: core's `mapProviderError` by code. */
  mapFailure?: (error: Record<string, unknown>) => ProviderError;
  /** Advice for the default failure mapping. */
  errorHints?: ProviderErrorHints;
  /**
   * Counts the answer as it arrives, each part once (every delta and call, also what is held
   * without an event: calls left out or deferred, refusal, annotations, reasoning items kept
   * for replay, provider tools' done items): `push` throws its `AnswerTooLargeError` past a bound.
   */
  answerLimit?: AnswerLimit | undefined;
}

/** Feed every parsed event to `push`, then call `end()`. */
export interface ResponsesStreamDecoder {
  push(event: ResponsesStreamEvent): ResponsesStreamPart[];
  /** An `error` when the stream ended before `response.completed` / `incomplete` / `failed`. */
  end(): ChatStreamEvent[];
  /** True once a terminal event arrived. */
  readonly finished: boolean;
}

interface ItemState {
  /** The call id (`call_id`), or the item id of a provider-executed call. */
  id: string;
  itemId: string | undefined;
  wireName: string;
  name: string;
  args: string;
  done: boolean;
  provider: ResolvedProviderTool | undefined;
  item: Record<string, unknown>;
  /** Code interpreter: the JSON text of `{ code, containerId }` is open after `"code":"`. */
  codeOpen: boolean;
  /** A function call beyond the first while `parallelToolCalls` is `false`: tracked, never emitted. */
  hidden: boolean;
  /** Whether `tool-call-start` went out (deferred for calls whose target is known only at the end). */
  started: boolean;
}

function escapeJsonFragment(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function closeCode(containerId: unknown): string {
  return containerId === undefined ? '"}' : `","containerId":${JSON.stringify(containerId)}}`;
}

/**
 * An id or index as part of a map key. Not `String(value)`: parsed JSON may hold an object
 * with its own `toString` key (`{"toString": 1}`), and converting that throws a TypeError.
 */
function keyPart(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? '');
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Creates the stateful decoder of one streamed Responses answer (OpenAI's Responses API
 * and the Codex backend). Function calls go `output_item.added` → `tool-call-start`,
 * `function_call_arguments.delta` → `tool-call-delta`, `output_item.done` → `tool-call`
 * (or at `response.completed` when the done event never came, as the Codex backend does).
 * Reasoning items with `encrypted_content` are kept in `providerMetadata[key].reasoningItems`
 * for replay; a provider tool's call (`<wireTool.type>_call`) becomes a provider-executed
 * call whose code streams as deltas of the JSON of `{ code, containerId }`.
 */
export function createResponsesStreamDecoder(options: ResponsesStreamDecoderOptions): ResponsesStreamDecoder {
  const providerTools = options.providerTools ?? [];
  const byIndex = new Map<number, ItemState>();
  const byItemId = new Map<string, ItemState>();
  const items: ItemState[] = [];
  const annotations: unknown[] = [];
  const reasoningItems: Record<string, unknown>[] = [];
  const wireCalls: Record<string, { name: string; arguments: string }> = {};
  /** The ids function calls went out with. */
  const callIds = new Set<string>();
  /** Message items whose text streamed as deltas, by item id and by output index. */
  const textItems = new Set<string>();
  const textIndexes = new Set<number>();
  /** The message item added last: deltas that name no item belong to it. */
  let lastMessage: { itemId: string | undefined; outputIndex: number | undefined } | undefined;
  let responseId: string | undefined;
  let modelId = options.modelId;
  let refusal = '';
  let terminal = false;
  let functionCalls = 0;
  let lastReasoningKey: string | undefined;
  const limit = options.answerLimit;
  /**
   * Events counted where they were held rather than where they went out: a deferred call's
   * start and arguments, sent at its end (made only once such a call ends, so that other
   * streams pay nothing per event).
   */
  let counted: WeakSet<ChatStreamEvent> | undefined;
  /** Reasoning items whose summary streamed as deltas (counted then), by item id. */
  const summaryItems = new Set<string>();

  function find(outputIndex: unknown, itemId: unknown): ItemState | undefined {
    const byId = typeof itemId === 'string' ? byItemId.get(itemId) : undefined;
    if (byId) return byId;
    return typeof outputIndex === 'number' ? byIndex.get(outputIndex) : undefined;
  }

  function track(outputIndex: unknown, state: ItemState): void {
    if (typeof outputIndex === 'number') byIndex.set(outputIndex, state);
    if (state.itemId !== undefined) byItemId.set(state.itemId, state);
    items.push(state);
  }

  function finishCall(state: ItemState, truncated: boolean): ChatStreamEvent[] {
    state.done = true;
    if (state.hidden) return [];
    const input = { id: state.id, name: state.wireName, rawArguments: state.args, truncated };
    const toolCall: ToolCall = options.callMapping ? options.callMapping.toToolCall(input) : toToolCall(input);
    if (options.recordWireCalls === true) wireCalls[state.id] = { name: state.wireName, arguments: state.args };
    const out: ChatStreamEvent[] = [];
    if (!state.started) {
      const start: ChatStreamEvent = { type: 'tool-call-start', id: toolCall.id, name: toolCall.name };
      const delta: ChatStreamEvent = { type: 'tool-call-delta', id: toolCall.id, argumentsDelta: toolCall.invalid?.rawArguments ?? JSON.stringify(toolCall.arguments) };
      out.push(start, delta);
      // The call and its argument text were counted as they arrived (see `onAdded`).
      if (limit !== undefined) {
        counted ??= new WeakSet();
        counted.add(start).add(delta);
      }
    }
    out.push({ type: 'tool-call', toolCall });
    return out;
  }

  function onAdded(outputIndex: unknown, raw: Record<string, unknown>, out: ResponsesStreamPart[]): void {
    const itemId = str(raw['id']);
    if (raw['type'] === 'message') {
      lastMessage = { itemId, outputIndex: typeof outputIndex === 'number' ? outputIndex : undefined };
      return;
    }
    if (raw['type'] === 'function_call') {
      if (itemId !== undefined && byItemId.has(itemId)) return;
      const callId = str(raw['call_id']);
      const wireId = callId !== undefined && callId !== '' ? callId : (itemId ?? '');
      // A call without an id, or with one an earlier call of the response has (a compatible
      // server's or proxy's doing), gets one of ours: ids only pair calls with their results.
      const id = wireId === '' || callIds.has(wireId) ? generateId('call_') : wireId;
      callIds.add(id);
      const wireName = str(raw['name']) ?? '';
      functionCalls += 1;
      const hidden = options.parallelToolCalls === false && functionCalls > 1;
      const deferred = options.callMapping?.defer(wireName) === true;
      const name = options.callMapping?.userName(wireName) ?? wireName;
      const state: ItemState = { id, itemId, wireName, name, args: '', done: false, provider: undefined, item: raw, codeOpen: false, hidden, started: !hidden && !deferred };
      track(outputIndex, state);
      if (!state.started) {
        state.args = str(raw['arguments']) ?? '';
        limit?.addToolCall();
        limit?.addChars(state.args.length);
        return;
      }
      out.push({ type: 'tool-call-start', id, name });
      const initial = str(raw['arguments']) ?? '';
      if (initial !== '') {
        state.args = initial;
        out.push({ type: 'tool-call-delta', id, argumentsDelta: initial });
      }
      return;
    }
    const provider = findProviderTool(providerTools, raw['type']);
    if (!provider) return;
    // An added event sent twice starts no second call.
    if (itemId !== undefined && byItemId.has(itemId)) return;
    // A call's id pairs it with its result: one without an item id, or with one an earlier
    // call has, gets one of ours.
    const id = itemId !== undefined && itemId !== '' && !callIds.has(itemId) ? itemId : generateId('call_');
    callIds.add(id);
    const state: ItemState = {
      id,
      itemId,
      wireName: provider.tool.name,
      name: provider.tool.name,
      args: '',
      done: false,
      provider,
      item: raw,
      codeOpen: false,
      hidden: false,
      started: true,
    };
    track(outputIndex, state);
    out.push({ type: 'tool-call-start', id, name: provider.tool.name, providerExecuted: true });
    if (raw['type'] === 'code_interpreter_call') {
      state.codeOpen = true;
      const code = str(raw['code']) ?? '';
      out.push({ type: 'tool-call-delta', id, argumentsDelta: `{"code":"${escapeJsonFragment(code)}` });
    }
  }

  function onDone(outputIndex: unknown, raw: Record<string, unknown>, out: ResponsesStreamPart[]): void {
    switch (raw['type']) {
      case 'reasoning': {
        const replayable = replayableReasoningItem(raw);
        if (replayable) {
          // Held for the answer's metadata: its encrypted content, and its summary unless that streamed (counted then).
          if (limit !== undefined) limit.addChars(reasoningItemChars(replayable, !summaryItems.has(str(raw['id']) ?? '')));
          reasoningItems.push(replayable);
        }
        return;
      }
      case 'message': {
        const itemId = str(raw['id']);
        if (itemId !== undefined && textItems.has(itemId)) return;
        if (typeof outputIndex === 'number' && textIndexes.has(outputIndex)) return;
        // The Codex backend may send a message's text only in its done item.
        const text = messageText(raw);
        if (text !== '') out.push({ type: 'text-delta', delta: text });
        return;
      }
      case 'local_shell_call':
      case 'custom_tool_call':
        out.push({ type: 'warning', warning: { type: 'other', message: `The model returned a ${raw['type']} item, which this provider does not run; it was ignored.` } });
        return;
      default:
        break;
    }
    let state = find(outputIndex, raw['id']);
    if (!state && raw['type'] === 'function_call') {
      // A done item without its added event: start it now.
      onAdded(outputIndex, raw, out);
      state = find(outputIndex, raw['id']);
    }
    if (!state || state.done) return;
    state.item = raw;
    if (!state.provider) {
      const text = str(raw['arguments']);
      if (text !== undefined) {
        // A call not yet sent holds the done item's text in place of the deltas': counted here (a sent one's goes out as counted deltas).
        if (!state.started && text.length > state.args.length) limit?.addChars(text.length - state.args.length);
        state.args = text;
      }
      out.push(...finishCall(state, raw['status'] === 'incomplete'));
      return;
    }
    // The done item is held for the provider output (its outputs, results, sources), which no delta carried; its code streamed (counted then).
    if (limit !== undefined) limit.addChars(JSON.stringify(raw).length - (str(raw['code'])?.length ?? 0));
    state.done = true;
    if (state.codeOpen) {
      state.codeOpen = false;
      out.push({ type: 'tool-call-delta', id: state.id, argumentsDelta: closeCode(raw['container_id'] ?? state.item['container_id']) });
    }
    out.push({ type: 'tool-call', toolCall: { id: state.id, name: state.name, arguments: providerCallArguments(raw), providerExecuted: true } });
  }

  function reasoningDelta(key: string, delta: unknown, out: ResponsesStreamPart[]): void {
    if (typeof delta !== 'string' || delta === '') return;
    const separator = lastReasoningKey !== undefined && lastReasoningKey !== key ? '\n\n' : '';
    lastReasoningKey = key;
    out.push({ type: 'reasoning-delta', delta: separator + delta });
  }

  function providerMetadata(): ProviderMetadata {
    const entry: Record<string, unknown> = { ...options.metadata?.() };
    if (responseId !== undefined) entry['responseId'] = responseId;
    if (annotations.length > 0) entry['annotations'] = annotations;
    if (refusal !== '') entry['refusal'] = refusal;
    if (reasoningItems.length > 0) entry['reasoningItems'] = reasoningItems;
    if (Object.keys(wireCalls).length > 0) entry['wireCalls'] = wireCalls;
    return { [options.metadataKey]: entry };
  }

  function onEnd(response: Record<string, unknown>, fallbackStatus: 'completed' | 'incomplete', out: ResponsesStreamPart[]): void {
    terminal = true;
    responseId = str(response['id']) ?? responseId;
    modelId = str(response['model']) ?? modelId;
    const incomplete = (response['status'] ?? fallbackStatus) === 'incomplete';
    for (const state of items) {
      if (state.done || state.provider) continue;
      // The stream finished without this call's output_item.done (the Codex backend skips it).
      out.push(...finishCall(state, incomplete));
    }
    for (const state of items) {
      if (state.provider && state.done) {
        out.push({ type: 'provider-output', output: { toolCallId: state.id, tool: state.provider.tool, item: state.item }, annotations });
      }
    }
    if (functionCalls > 1 && options.parallelToolCalls === false) out.push({ type: 'warning', warning: droppedCallsWarning(functionCalls - 1) });
    const details = isRecord(response['incomplete_details']) ? response['incomplete_details'] : {};
    const usage = mapResponsesUsage(response['usage']);
    out.push({
      type: 'finish',
      finishReason: mapResponsesFinishReason({
        status: response['status'] ?? fallbackStatus,
        incompleteReason: details['reason'],
        hasClientToolCalls: items.some((state) => !state.provider),
      }),
      ...(usage ? { usage } : {}),
      ...(responseId !== undefined ? { responseId } : {}),
      ...(modelId !== undefined ? { modelId } : {}),
      providerMetadata: providerMetadata(),
    });
  }

  function failure(error: Record<string, unknown>): ProviderError {
    if (options.mapFailure) return options.mapFailure(error);
    const code = str(error['code']) ?? str(error['type']);
    return mapProviderError({
      provider: options.provider,
      message: str(error['message']) ?? 'The response failed without an error message.',
      ...(code !== undefined ? { code } : {}),
      ...(options.errorHints ? { hints: options.errorHints } : {}),
    });
  }

  return {
    get finished() {
      return terminal;
    },
    push(pushed) {
      const out: ResponsesStreamPart[] = [];
      // `data: null` (or a number, a list) parses as JSON but is no event: it names no type,
      // so it is skipped like an event of an unknown type.
      if (terminal || !isRecord(pushed)) return out;
      const event: Record<string, unknown> = pushed;
      switch (event['type']) {
        case 'response.created':
        case 'response.in_progress': {
          const response = isRecord(event['response']) ? event['response'] : {};
          responseId = str(response['id']) ?? responseId;
          modelId = str(response['model']) ?? modelId;
          break;
        }
        case 'response.output_item.added':
          if (isRecord(event['item'])) onAdded(event['output_index'], event['item'], out);
          break;
        case 'response.output_item.done':
          if (isRecord(event['item'])) onDone(event['output_index'], event['item'], out);
          break;
        case 'response.function_call_arguments.delta': {
          const state = find(event['output_index'], event['item_id']);
          const delta = str(event['delta']);
          if (state && !state.done && !state.provider && delta !== undefined && delta !== '') {
            state.args += delta;
            if (state.started) out.push({ type: 'tool-call-delta', id: state.id, argumentsDelta: delta });
            else limit?.addChars(delta.length);
          }
          break;
        }
        case 'response.code_interpreter_call_code.delta': {
          const state = find(event['output_index'], event['item_id']);
          const delta = str(event['delta']);
          if (state?.codeOpen === true && delta !== undefined && delta !== '') {
            out.push({ type: 'tool-call-delta', id: state.id, argumentsDelta: escapeJsonFragment(delta) });
          }
          break;
        }
        case 'response.output_text.delta': {
          // `item_id` and `output_index` are required, but a compatible server or proxy may
          // leave them out: the text must still not come again with the done item.
          const itemId = str(event['item_id']);
          const outputIndex = event['output_index'];
          if (itemId !== undefined && !textItems.has(itemId)) {
            limit?.addChars(itemId.length);
            textItems.add(itemId);
          }
          if (typeof outputIndex === 'number' && !textIndexes.has(outputIndex)) {
            // An entry held for the stream's length: counted as a few characters.
            limit?.addChars(8);
            textIndexes.add(outputIndex);
          }
          if (itemId === undefined && typeof outputIndex !== 'number' && lastMessage !== undefined) {
            if (lastMessage.itemId !== undefined) textItems.add(lastMessage.itemId);
            if (lastMessage.outputIndex !== undefined) textIndexes.add(lastMessage.outputIndex);
          }
          const delta = str(event['delta']);
          if (delta !== undefined && delta !== '') out.push({ type: 'text-delta', delta });
          break;
        }
        case 'response.output_text.annotation.added':
          limit?.addChars(JSON.stringify(event['annotation'] ?? null).length);
          annotations.push(event['annotation']);
          break;
        case 'response.refusal.delta': {
          const delta = str(event['delta']) ?? '';
          limit?.addChars(delta.length);
          refusal += delta;
          break;
        }
        case 'response.reasoning_summary_text.delta':
          if (limit !== undefined && typeof event['item_id'] === 'string' && !summaryItems.has(event['item_id'])) {
            limit.addChars(event['item_id'].length);
            summaryItems.add(event['item_id']);
          }
          reasoningDelta(`${keyPart(event['item_id'])}:s${keyPart(event['summary_index'])}`, event['delta'], out);
          break;
        case 'response.reasoning_text.delta':
          reasoningDelta(`${keyPart(event['item_id'])}:c${keyPart(event['content_index'])}`, event['delta'], out);
          break;
        case 'response.completed':
        case 'response.incomplete':
          onEnd(isRecord(event['response']) ? event['response'] : {}, event['type'] === 'response.incomplete' ? 'incomplete' : 'completed', out);
          break;
        case 'response.failed': {
          terminal = true;
          const response = isRecord(event['response']) ? event['response'] : {};
          out.push({ type: 'error', error: failure(isRecord(response['error']) ? response['error'] : {}) });
          break;
        }
        case 'error':
          terminal = true;
          out.push({ type: 'error', error: failure(isRecord(event['error']) ? event['error'] : event) });
          break;
        default:
          options.onOtherEvent?.(event);
          break;
      }
      // What went out as events, but for what was counted while it was held.
      if (limit !== undefined) for (const part of out) if (part.type !== 'provider-output' && counted?.has(part) !== true) limit.addEvent(part);
      return out;
    },
    end() {
      if (terminal) return [];
      terminal = true;
      return [
        {
          type: 'error',
          error: new StreamError({
            provider: options.provider,
            retryable: true,
            message:
              `The Responses stream${responseId !== undefined ? ` of ${responseId}` : ''}${modelId !== undefined ? ` (${modelId})` : ''} ` +
              'ended before response.completed, so the answer may be incomplete. Send the request again.',
          }),
        },
      ];
    },
  };
}

/** The characters a reasoning item kept for replay holds: its encrypted content, and its summary's text when `withSummary`. */
function reasoningItemChars(item: Record<string, unknown>, withSummary: boolean): number {
  let chars = typeof item['encrypted_content'] === 'string' ? item['encrypted_content'].length : 0;
  if (withSummary && Array.isArray(item['summary'])) {
    for (const part of item['summary'] as unknown[]) if (isRecord(part) && typeof part['text'] === 'string') chars += part['text'].length;
  }
  return chars;
}

function messageText(item: Record<string, unknown>): string {
  const content = item['content'];
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content as unknown[]) {
    if (isRecord(part) && part['type'] === 'output_text' && typeof part['text'] === 'string') text += part['text'];
  }
  return text;
}
