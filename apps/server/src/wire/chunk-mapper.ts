import type { ChatStreamEvent, ToolCall } from '@toolwire/core';
import type { ResponseIdentity } from './chat-completion.ts';
import { toWireFinishReason } from './finish-reason.ts';
import type { ChatCompletionChunk, WireDelta, WireFinishReason } from './openai-wire-types.ts';
import { toWireUsage } from './usage.ts';

/** Options of `createChunkMapper`. */
export interface ChunkMapperOptions {
  identity: ResponseIdentity;
  /** `stream_options.include_usage`: a `choices: []` usage chunk follows the finish chunk. */
  includeUsage: boolean;
}

/**
 * Turns core stream events into `chat.completion.chunk` objects in the order strict
 * clients require: role first; per call one header delta (`index`, `id`, `type`,
 * `function.name`, `arguments: ""`) and then its arguments, calls never interleaved;
 * the finish chunk; the usage chunk. `error` events produce nothing here (the caller
 * writes the error frame).
 *
 * A call's header goes out at its `tool-call-start` and its `tool-call-delta`s as they
 * come, as long as it is the call on the wire; a call that starts while another is open
 * waits (header and text held) until that one's `tool-call`. Deltas are forwarded as
 * given, so they must be the call's JSON argument text (the gateway's client view only
 * streams such calls); a call whose `tool-call` comes without deltas gets its arguments
 * as one JSON string then.
 */
export interface ChunkMapper {
  push(event: ChatStreamEvent): ChatCompletionChunk[];
  /**
   * The SSE frame (`data: …\n\n`) of a text delta when `push` would give exactly one plain
   * text chunk for it (after the opening chunk, before the finish), else `undefined`: the
   * same bytes as `sseFrame` of that chunk, from a prefix and suffix built once per stream,
   * with no chunk object built and serialized per token.
   */
  textFrame(event: ChatStreamEvent): string | undefined;
  /** Whether the finish chunk was produced. */
  readonly finished: boolean;
}

interface PendingCall {
  id: string;
  name: string;
  index: number;
  headerSent: boolean;
  /** Argument text received while another call was on the wire. */
  held: string;
  /** Whether any argument text was received (sent or held). */
  hasText: boolean;
  call?: ToolCall;
}

/** Creates the stateful event → chunk mapper for one streamed response. */
export function createChunkMapper(options: ChunkMapperOptions): ChunkMapper {
  return new StreamChunkMapper(options);
}

// A class, not a closure per method: one is held by every open stream for its whole length.
class StreamChunkMapper implements ChunkMapper {
  readonly #id: string;
  readonly #created: number;
  readonly #model: string;
  readonly #includeUsage: boolean;
  #started = false;
  #finished = false;
  #nextIndex = 0;
  // Calls in the order they started; the first one is the one whose deltas are on the wire. Made at the first call.
  #queue: PendingCall[] | undefined;
  #byId: Map<string, PendingCall> | undefined;
  /** A text chunk's SSE frame before and after its JSON-encoded content (see `textFrame`), built on the first text frame. */
  #textPrefix: string | undefined;
  #textSuffix = '';

  constructor(options: ChunkMapperOptions) {
    const { id, created, model } = options.identity;
    this.#id = id;
    this.#created = created;
    this.#model = model;
    this.#includeUsage = options.includeUsage;
  }

  get finished(): boolean {
    return this.#finished;
  }

  #chunk(delta: WireDelta, finishReason: WireFinishReason | null = null): ChatCompletionChunk {
    const c: ChatCompletionChunk = {
      id: this.#id,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    };
    if (this.#includeUsage) c.usage = null;
    return c;
  }

  #header(p: PendingCall): ChatCompletionChunk {
    p.headerSent = true;
    return this.#chunk({ tool_calls: [{ index: p.index, id: p.id, type: 'function', function: { name: p.name, arguments: '' } }] });
  }

  #argumentsChunk(p: PendingCall, text: string): ChatCompletionChunk {
    return this.#chunk({ tool_calls: [{ index: p.index, function: { arguments: text } }] });
  }

  /** Emits every call at the head of the queue that is complete, and the header and held text of the next open one. */
  #drain(out: ChatCompletionChunk[], force: boolean): void {
    const queue = this.#queue;
    if (queue === undefined) return;
    while (queue.length > 0) {
      const head = queue[0];
      if (head === undefined) break;
      if (!head.headerSent) out.push(this.#header(head));
      if (head.held !== '') {
        out.push(this.#argumentsChunk(head, head.held));
        head.held = '';
      }
      if (head.call === undefined && !force) return;
      if (!head.hasText) out.push(this.#argumentsChunk(head, JSON.stringify(head.call?.arguments ?? {})));
      queue.shift();
      this.#byId?.delete(head.id);
    }
  }

  #startCall(callId: string, name: string): PendingCall {
    const pending: PendingCall = { id: callId, name, index: this.#nextIndex++, headerSent: false, held: '', hasText: false };
    (this.#queue ??= []).push(pending);
    (this.#byId ??= new Map()).set(callId, pending);
    return pending;
  }

  textFrame(event: ChatStreamEvent): string | undefined {
    if (event.type !== 'text-delta' || !this.#started || this.#finished || event.delta === '') return undefined;
    if (this.#textPrefix === undefined) {
      // A text chunk's JSON around its content, from the same builder (same keys, same order).
      const TEXT_MARK = '"delta":{"content":""}';
      const sample = JSON.stringify(this.#chunk({ content: '' }));
      // The last occurrence: `id` and `model` come before the delta, and an escaped string cannot hold an unescaped quote.
      const at = sample.lastIndexOf(TEXT_MARK);
      // Joined rather than concatenated: flat strings, not ropes holding `sample`, for the stream's whole length.
      this.#textPrefix = ['data: ', sample.slice(0, at), '"delta":{"content":'].join('');
      this.#textSuffix = ['}', sample.slice(at + TEXT_MARK.length), '\n\n'].join('');
    }
    return this.#textPrefix + JSON.stringify(event.delta) + this.#textSuffix;
  }

  push(event: ChatStreamEvent): ChatCompletionChunk[] {
    const out: ChatCompletionChunk[] = [];
    if (this.#finished) return out;
    switch (event.type) {
      case 'text-delta':
        if (event.delta !== '') out.push(this.#chunk({ content: event.delta }));
        break;
      case 'reasoning-delta':
        if (event.delta !== '') out.push(this.#chunk({ reasoning_content: event.delta }));
        break;
      case 'tool-call-start':
        if (this.#byId?.has(event.id) !== true) this.#startCall(event.id, event.name);
        this.#drain(out, false);
        break;
      case 'tool-call': {
        const pending = this.#byId?.get(event.toolCall.id) ?? this.#startCall(event.toolCall.id, event.toolCall.name);
        pending.call = event.toolCall;
        this.#drain(out, false);
        break;
      }
      case 'finish': {
        this.#drain(out, true);
        out.push(this.#chunk({}, toWireFinishReason(event.finishReason, this.#nextIndex > 0)));
        // No usage from upstream: no usage chunk, rather than invented zeros (README).
        if (this.#includeUsage && event.usage !== undefined) {
          out.push({ id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices: [], usage: toWireUsage(event.usage) });
        }
        this.#finished = true;
        break;
      }
      case 'tool-call-delta': {
        const pending = this.#byId?.get(event.id);
        if (pending === undefined || event.argumentsDelta === '') break;
        pending.hasText = true;
        if (this.#queue?.[0] === pending && pending.headerSent) out.push(this.#argumentsChunk(pending, event.argumentsDelta));
        else pending.held += event.argumentsDelta;
        break;
      }
      case 'tool-result':
      case 'warning':
      case 'error':
        break;
      default: {
        const unexpected: never = event;
        throw new Error(`Unknown stream event ${JSON.stringify(unexpected)}`);
      }
    }
    if (!this.#started && out.length > 0) {
      this.#started = true;
      openWithRole(out);
    }
    return out;
  }
}

/**
 * The role goes out with the first delta, as OpenAI sends it: on a turn that opens with a
 * call, merged into the call's header with `content: null`; otherwise in a chunk of its
 * own with `content: ""` before the first text.
 */
function openWithRole(out: ChatCompletionChunk[]): void {
  const first = out[0];
  const choice = first?.choices[0];
  if (first === undefined || choice === undefined) return;
  if (choice.delta.tool_calls !== undefined) {
    choice.delta = { role: 'assistant', content: null, ...choice.delta, refusal: null };
    return;
  }
  out.unshift({ ...first, choices: [{ ...choice, delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null }] });
}
