import type { ChatStreamEvent, ToolCall, Usage } from '@toolwire/core';
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
  const { id, created, model } = options.identity;
  const includeUsage = options.includeUsage;
  let started = false;
  let finished = false;
  let nextIndex = 0;
  // Calls in the order they started; the first one is the one whose deltas are on the wire.
  const queue: PendingCall[] = [];
  // Made at the first call: most streams have none, and a stream stays open for seconds.
  let byId: Map<string, PendingCall> | undefined;

  const chunk = (delta: WireDelta, finishReason: WireFinishReason | null = null): ChatCompletionChunk => {
    const c: ChatCompletionChunk = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    };
    if (includeUsage) c.usage = null;
    return c;
  };

  // A text chunk's JSON around its content, from the same builder (same keys, same order).
  const TEXT_MARK = '"delta":{"content":""}';
  const sample = JSON.stringify(chunk({ content: '' }));
  // The last occurrence: `id` and `model` come before the delta, and an escaped string cannot hold an unescaped quote.
  const at = sample.lastIndexOf(TEXT_MARK);
  const textPrefix = `data: ${sample.slice(0, at)}"delta":{"content":`;
  const textSuffix = `}${sample.slice(at + TEXT_MARK.length)}\n\n`;

  const header = (p: PendingCall): ChatCompletionChunk => {
    p.headerSent = true;
    return chunk({ tool_calls: [{ index: p.index, id: p.id, type: 'function', function: { name: p.name, arguments: '' } }] });
  };

  const argumentsChunk = (p: PendingCall, text: string): ChatCompletionChunk => chunk({ tool_calls: [{ index: p.index, function: { arguments: text } }] });

  // Emits every call at the head of the queue that is complete, and the header and held text of the next open one.
  const drain = (out: ChatCompletionChunk[], force: boolean): void => {
    while (queue.length > 0) {
      const head = queue[0];
      if (head === undefined) break;
      if (!head.headerSent) out.push(header(head));
      if (head.held !== '') {
        out.push(argumentsChunk(head, head.held));
        head.held = '';
      }
      if (head.call === undefined && !force) return;
      if (!head.hasText) out.push(argumentsChunk(head, JSON.stringify(head.call?.arguments ?? {})));
      queue.shift();
      byId?.delete(head.id);
    }
  };

  const startCall = (callId: string, name: string): PendingCall => {
    const pending: PendingCall = { id: callId, name, index: nextIndex++, headerSent: false, held: '', hasText: false };
    queue.push(pending);
    (byId ??= new Map()).set(callId, pending);
    return pending;
  };

  let usage: Usage | undefined;
  return {
    get finished() {
      return finished;
    },
    textFrame(event) {
      if (event.type !== 'text-delta' || !started || finished || event.delta === '') return undefined;
      return textPrefix + JSON.stringify(event.delta) + textSuffix;
    },
    push(event) {
      const out: ChatCompletionChunk[] = [];
      if (finished) return out;
      switch (event.type) {
        case 'text-delta':
          if (event.delta !== '') out.push(chunk({ content: event.delta }));
          break;
        case 'reasoning-delta':
          if (event.delta !== '') out.push(chunk({ reasoning_content: event.delta }));
          break;
        case 'tool-call-start':
          if (byId?.has(event.id) !== true) startCall(event.id, event.name);
          drain(out, false);
          break;
        case 'tool-call': {
          const pending = byId?.get(event.toolCall.id) ?? startCall(event.toolCall.id, event.toolCall.name);
          pending.call = event.toolCall;
          drain(out, false);
          break;
        }
        case 'finish': {
          drain(out, true);
          usage = event.usage;
          out.push(chunk({}, toWireFinishReason(event.finishReason, nextIndex > 0)));
          // No usage from upstream: no usage chunk, rather than invented zeros (README).
          if (includeUsage && usage !== undefined) {
            out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: toWireUsage(usage) });
          }
          finished = true;
          break;
        }
        case 'tool-call-delta': {
          const pending = byId?.get(event.id);
          if (pending === undefined || event.argumentsDelta === '') break;
          pending.hasText = true;
          if (queue[0] === pending && pending.headerSent) out.push(argumentsChunk(pending, event.argumentsDelta));
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
      if (!started && out.length > 0) {
        started = true;
        openWithRole(out);
      }
      return out;
    },
  };
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
