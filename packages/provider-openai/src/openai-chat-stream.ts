import { StreamError } from '@toolwire/core';
import type { AnswerLimit, ChatStreamEvent, Usage } from '@toolwire/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { mapChatFinishReason } from './openai-chat-finish-reason.ts';
import { droppedCallsWarning } from '@toolwire/openai-responses';
import { argumentsText, readContentParts, readReasoning } from './openai-chat-response.ts';
import { mapChatUsage } from './openai-usage.ts';
import { readTextCall, textCallOpening, textCallWarning, toToolCall } from '@toolwire/core/provider';

/** Options of `createChatStreamMapper`. */
export interface ChatStreamMapperOptions {
  /** `false` keeps only the first call (its events only), with a warning. */
  parallelToolCalls?: boolean;
  /** Makes ids for calls a server sent without one. */
  generateId: () => string;
  /**
   * The tools offered: an answer that is nothing but one call to one of them written as
   * text (a compatible server that left it in `content`) becomes that call. Text that may
   * still be one is held back until it is known (see `textCallOpening`).
   */
  textCallTools?: readonly { name: string }[];
  /**
   * Counts the answer as it arrives (text, reasoning, refusal, arguments; every call), also
   * what is held without an event (text that may be a call, calls left out, calls without a
   * name yet): `push` throws its `AnswerTooLargeError` past a bound.
   */
  answerLimit?: AnswerLimit | undefined;
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
  /** Whether a finish reason came: the answer is complete, only the usage chunk and `[DONE]` may follow. */
  readonly finished: boolean;
}

interface CallState {
  /** Order of first appearance; calls are finished in this order. */
  position: number;
  /** The id the server gave the call, which tells its fragments apart. */
  wireId: string | undefined;
  /** The id the call goes out with: the server's, or ours when it sent none or one already used. */
  id: string | undefined;
  name: string | undefined;
  args: string;
  started: boolean;
}

type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A fragment's call id, if it is a non-empty string (a server may send a number, an object, or ""). */
function wireIdOf(delta: ToolCallDelta): string | undefined {
  const id: unknown = delta.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Creates the stateful chunk mapper of a streamed Chat Completions call. Tool-call
 * fragments are assembled by `index` (interleaved fragments of parallel calls included);
 * `tool-call-start` comes once a call's name is known, `tool-call-delta` per fragment, and
 * the finished `tool-call`s only at the finish reason: never because partial arguments
 * happen to parse as JSON (the AI SDK shipped that bug twice, research/ai-sdk.md §2).
 */
export function createChatStreamMapper(options: ChatStreamMapperOptions): ChatStreamMapper {
  return new ChatChunkMapper(options);
}

// A class, not a closure per step: one is held by every open stream for its whole length.
class ChatChunkMapper implements ChatStreamMapper {
  readonly #generateId: () => string;
  readonly #keepAll: boolean;
  // Made at the first tool call: most streams have none, and a stream stays open for seconds.
  #byKey: Map<number, CallState> | undefined;
  #calls: CallState[] | undefined;
  #last: CallState | undefined;
  // Keys for calls without a usable index; real indexes are never negative.
  #syntheticKey = -1;
  #rawFinish: string | undefined;
  #usage: Usage | undefined;
  #responseId: string | undefined;
  #modelId: string | undefined;
  #refusal = '';
  readonly #textCallTools: readonly { name: string }[] | undefined;
  /** Text is held while it may still be a call written as text. */
  #holding: boolean;
  #held = '';
  /** The held text opens as a call: held to the end without asking again. */
  #heldCall = false;
  /** The call read from the text, if the answer was one. */
  #textCall = false;
  readonly #limit: AnswerLimit | undefined;

  constructor(options: ChatStreamMapperOptions) {
    this.#limit = options.answerLimit;
    this.#generateId = options.generateId;
    this.#keepAll = options.parallelToolCalls !== false;
    this.#textCallTools = options.textCallTools;
    this.#holding = options.textCallTools !== undefined && options.textCallTools.length > 0;
  }

  /** The event for streamed text: held back while it may still be a call written as text. */
  #text(content: string): ChatStreamEvent | undefined {
    if (!this.#holding) return { type: 'text-delta', delta: content };
    this.#held += content;
    if (this.#heldCall) return undefined;
    const opening = textCallOpening(this.#held);
    if (opening === 'call') this.#heldCall = true;
    if (opening !== 'text') return undefined;
    this.#holding = false;
    const delta = this.#held;
    this.#held = '';
    return { type: 'text-delta', delta };
  }

  /** At the end: the held text as the call it is, or as text after all (always when `textOnly`). */
  #releaseHeld(out: ChatStreamEvent[], textOnly: boolean): void {
    if (!this.#holding) return;
    this.#holding = false;
    const held = this.#held;
    this.#held = '';
    if (held === '') return;
    const call = textOnly || this.#textCallTools === undefined ? undefined : readTextCall(held, this.#textCallTools);
    if (call === undefined) {
      out.push({ type: 'text-delta', delta: held });
      return;
    }
    this.#textCall = true;
    out.push({ type: 'warning', warning: textCallWarning(call.name, 'the server') });
    out.push({ type: 'tool-call-start', id: call.id, name: call.name });
    out.push({ type: 'tool-call-delta', id: call.id, argumentsDelta: JSON.stringify(call.arguments) });
    out.push({ type: 'tool-call', toolCall: call });
  }

  push(chunk: ChatCompletionChunk): ChatStreamEvent[] {
    const out: ChatStreamEvent[] = [];
    // Every field is read as what it may be, not what the SDK's types say: a server (or a
    // proxy) has sent ids that are numbers, `choices` that is an object, `tool_calls` a string.
    if (typeof chunk.id === 'string') this.#responseId ??= chunk.id;
    if (typeof chunk.model === 'string') this.#modelId ??= chunk.model;
    if (chunk.usage) this.#usage = mapChatUsage(chunk.usage);
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice) || this.#rawFinish !== undefined) return out;
    const delta = isRecord(choice.delta) ? (choice.delta as ChatCompletionChunk.Choice.Delta) : undefined;
    if (delta) {
      const reasoning = readReasoning(delta);
      if (reasoning !== undefined && reasoning !== '') {
        this.#limit?.addChars(reasoning.length);
        out.push({ type: 'reasoning-delta', delta: reasoning });
      }
      const content: unknown = delta.content;
      if (typeof content === 'string') {
        this.#limit?.addChars(content.length);
        const event = content !== '' ? this.#text(content) : undefined;
        if (event !== undefined) out.push(event);
      } else if (Array.isArray(content)) {
        // Mistral's reasoning models stream `content` as a list of parts (see `readContentParts`).
        const parts = readContentParts(content);
        this.#limit?.addChars(parts.reasoning.length + parts.text.length);
        if (parts.reasoning !== '') out.push({ type: 'reasoning-delta', delta: parts.reasoning });
        const event = parts.text !== '' ? this.#text(parts.text) : undefined;
        if (event !== undefined) out.push(event);
      }
      if (typeof delta.refusal === 'string') {
        this.#limit?.addChars(delta.refusal.length);
        this.#refusal += delta.refusal;
      }
      const toolCalls: unknown = delta.tool_calls;
      if (Array.isArray(toolCalls)) {
        for (const toolCallDelta of toolCalls) if (isRecord(toolCallDelta)) this.#onToolCallDelta(toolCallDelta as unknown as ToolCallDelta, out);
      }
    }
    const finishReason: unknown = choice.finish_reason;
    if (typeof finishReason === 'string' && finishReason !== '') {
      this.#rawFinish = finishReason;
      this.#finishCalls(out);
    }
    return out;
  }

  get finished(): boolean {
    return this.#rawFinish !== undefined;
  }

  pushText(content: string): ChatStreamEvent | undefined {
    if (this.#rawFinish !== undefined || content === '') return undefined;
    this.#limit?.addChars(content.length);
    return this.#text(content);
  }

  end(): ChatStreamEvent[] {
    const rawFinish = this.#rawFinish;
    if (rawFinish === undefined) {
      const held: ChatStreamEvent[] = [];
      // A stream cut short: what was held is text, and no call.
      if (this.#holding && this.#held !== '') held.push({ type: 'text-delta', delta: this.#held });
      this.#holding = false;
      this.#held = '';
      return [
        ...held,
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
    const startedCount = (this.#calls ?? []).filter((call) => call.started).length;
    if (!this.#keepAll && startedCount > 1) out.push({ type: 'warning', warning: droppedCallsWarning(startedCount - 1) });
    const finishReason = mapChatFinishReason(rawFinish, startedCount > 0 || this.#textCall);
    const usage = this.#usage;
    const responseId = this.#responseId;
    const modelId = this.#modelId;
    const refusal = this.#refusal;
    out.push({
      type: 'finish',
      finishReason,
      ...(usage ? { usage } : {}),
      ...(responseId !== undefined ? { responseId } : {}),
      ...(modelId !== undefined ? { modelId } : {}),
      ...(refusal !== '' ? { providerMetadata: { openai: { refusal } } } : {}),
    });
    return out;
  }

  #newCall(key: number): CallState {
    this.#limit?.addToolCall();
    const calls = (this.#calls ??= []);
    const call: CallState = { position: calls.length, wireId: undefined, id: undefined, name: undefined, args: '', started: false };
    (this.#byKey ??= new Map()).set(key, call);
    calls.push(call);
    return call;
  }

  #callFor(delta: ToolCallDelta): CallState {
    const id = wireIdOf(delta);
    if (typeof delta.index === 'number' && Number.isSafeInteger(delta.index) && delta.index >= 0) {
      const known = this.#byKey?.get(delta.index);
      // Some servers (Ollama, research/openai-compat.md §4) give every call index 0: a new id is a new call.
      if (!known || (id !== undefined && id !== '' && known.wireId !== undefined && known.wireId !== id)) {
        return this.#newCall(delta.index);
      }
      return known;
    }
    // No index at all (old Ollama): a fragment with an id or a name starts a call, the rest continue the last one.
    if (id !== undefined && id !== '') {
      const sameId = this.#calls?.find((call) => call.wireId === id);
      if (sameId) return sameId;
      return this.#newCall(this.#syntheticKey--);
    }
    const fn: unknown = delta.function;
    if (this.#last && (!isRecord(fn) || fn.name == null)) return this.#last;
    return this.#newCall(this.#syntheticKey--);
  }

  #onToolCallDelta(delta: ToolCallDelta, out: ChatStreamEvent[]): void {
    const call = this.#callFor(delta);
    this.#last = call;
    const wireId = wireIdOf(delta);
    if (call.wireId === undefined && wireId !== undefined) {
      call.wireId = wireId;
      // Some servers give every call of a turn the same id: ids only pair calls with results.
      call.id ??= this.#calls?.some((other) => other !== call && other.id === wireId) === true ? this.#generateId() : wireId;
    }
    // A name repeated in every delta is assigned, not concatenated (get_timeget_time).
    const fn: unknown = delta.function;
    const name: unknown = isRecord(fn) ? fn.name : undefined;
    if (call.name === undefined && typeof name === 'string' && name !== '') call.name = name;
    const fragment = argumentsText(isRecord(fn) ? fn.arguments : undefined);
    this.#limit?.addChars(fragment.length);
    const visible = this.#keepAll || call.position === 0;
    if (!call.started) {
      call.args += fragment;
      if (call.name === undefined) return;
      call.started = true;
      call.id ??= this.#generateId();
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

  #finishCalls(out: ChatStreamEvent[]): void {
    const calls = this.#calls ?? [];
    // Cut by the token limit, held text is no whole call.
    this.#releaseHeld(out, calls.length > 0 || this.#rawFinish === 'length');
    const keepAll = this.#keepAll;
    const rawFinish = this.#rawFinish;
    const started = calls.filter((call) => call.started);
    const kept = keepAll ? started : started.slice(0, 1);
    const lastPosition = started.length > 0 ? started[started.length - 1]?.position : undefined;
    for (const call of kept) {
      out.push({
        type: 'tool-call',
        toolCall: toToolCall({
          id: call.id ?? this.#generateId(),
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
}
