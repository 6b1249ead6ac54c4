import { generateId } from '@toolwire/core';
import type { ChatStreamEvent, FinishReason, ToolCall, Usage } from '@toolwire/core';
import type { ResponsesEcho } from './parsed-responses-request.ts';
import { CUSTOM_TOOL_INPUT } from './parse-responses-tools.ts';
import type {
  WireCustomToolCallItem,
  WireFunctionCallItem,
  WireMessageItem,
  WireOutputItem,
  WireReasoningItem,
  WireResponse,
  WireResponsesEvent,
  WireResponsesUsage,
} from './responses-wire-types.ts';

/** How calls of one client tool go back: as `function_call` (with its namespace) or `custom_tool_call`. */
export interface ClientToolShape {
  kind: 'function' | 'custom';
  namespace?: string;
}

/** What identifies one response and what it repeats of the request. */
export interface ResponsesIdentity {
  /** `resp_…` */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The model name the client asked for. */
  model: string;
  echo: ResponsesEcho;
}

/** Options of `createResponsesEventMapper`. */
export interface ResponsesEventMapperOptions {
  identity: ResponsesIdentity;
  /** The client's tools by name; a call of a name not here goes back as a `function_call`. */
  tools: ReadonlyMap<string, ClientToolShape>;
  /** Makes item ids (`msg_`, `fc_`, `ctc_`, `rs_` + random); replaceable for tests. */
  generateId?: (prefix: string) => string;
}

/** An error as it ends a started stream. */
export interface ResponsesFailure {
  code: string;
  message: string;
  param: string | null;
}

/**
 * Turns core stream events into Responses server-sent events, in OpenAI's order:
 * `response.created` and `response.in_progress` (`start`); per output item
 * `response.output_item.added`, its content (`content_part.added`, `output_text.delta`…,
 * `output_text.done`, `content_part.done`; or `function_call_arguments.delta`… and `.done`)
 * and `response.output_item.done`; then `response.completed` (or `response.incomplete` when
 * the token limit or a content filter cut the answer) with the whole response and usage.
 * Every event has the next `sequence_number`. Items never interleave: text or a call that
 * starts while another call is on the wire waits until that call is complete.
 *
 * Calls of freeform tools (`kind: 'custom'`) go out once complete as `custom_tool_call`
 * items whose `input` is the model's `input` argument.
 */
export interface ResponsesEventMapper {
  /** `response.created` and `response.in_progress`. */
  start(): WireResponsesEvent[];
  push(event: ChatStreamEvent): WireResponsesEvent[];
  /** An `error` event and `response.failed` with the items so far. */
  fail(failure: ResponsesFailure): WireResponsesEvent[];
  /** Whether the stream ended (completed, incomplete or failed). */
  readonly finished: boolean;
  /** The response as it stands; final once `finished`. */
  response(): WireResponse;
}

interface PendingCall {
  callId: string;
  name: string;
  shape: ClientToolShape;
  itemId: string;
  outputIndex: number;
  headerSent: boolean;
  /** Argument text received while another item was on the wire. */
  held: string;
  /** All argument text received. */
  text: FlatText;
  call?: ToolCall;
}

type OpenItem = { kind: 'message'; item: WireMessageItem; text: FlatText } | { kind: 'reasoning'; item: WireReasoningItem; text: FlatText };

/** Deltas joined per this many: a block of a few KiB costs its characters and little more. */
const DELTAS_PER_BLOCK = 256;

/**
 * Text built from many small deltas, held for the item's `done` events. `text += delta` would
 * keep a rope node per delta alive for the stream's length, about 10 bytes per character of a
 * long answer (measured: bench/endless-answers.measure.ts); here deltas are joined in blocks.
 */
class FlatText {
  readonly #blocks: string[] = [];
  readonly #parts: string[] = [];

  add(delta: string): void {
    const parts = this.#parts;
    parts.push(delta);
    if (parts.length < DELTAS_PER_BLOCK) return;
    this.#blocks.push(parts.join(''));
    parts.length = 0;
  }

  toString(): string {
    return this.#blocks.join('') + this.#parts.join('');
  }
}

/** Core usage → the Responses `usage` object; `null` when the upstream reported none. */
export function toResponsesUsage(usage: Usage | undefined): WireResponsesUsage | null {
  if (usage === undefined) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens,
  };
}

function incompleteReason(reason: FinishReason): 'max_output_tokens' | 'content_filter' | undefined {
  if (reason === 'length') return 'max_output_tokens';
  if (reason === 'content-filter') return 'content_filter';
  return undefined;
}

/** Creates the stateful event mapper for one response (streamed, or collected for a non-streamed answer). */
export function createResponsesEventMapper(options: ResponsesEventMapperOptions): ResponsesEventMapper {
  const { identity, tools } = options;
  const newId = options.generateId ?? ((prefix: string) => generateId(prefix));
  const output: WireOutputItem[] = [];
  let sequence = 0;
  let finished = false;
  let status: WireResponse['status'] = 'in_progress';
  let error: WireResponse['error'] = null;
  let incomplete: WireResponse['incomplete_details'] = null;
  let usage: WireResponsesUsage | null = null;
  let completedAt: number | null = null;
  let open: OpenItem | undefined;
  // Calls in the order they started; the first one is the one on the wire.
  const queue: PendingCall[] = [];
  const byId = new Map<string, PendingCall>();
  // Text and reasoning that came while a call was on the wire.
  const heldDeltas: { kind: 'text' | 'reasoning'; delta: string }[] = [];

  const snapshot = (): WireResponse => ({
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    completed_at: completedAt,
    status,
    background: false,
    error,
    incomplete_details: incomplete,
    model: identity.model,
    output: structuredClone(output),
    max_tool_calls: null,
    top_logprobs: 0,
    usage,
    ...identity.echo,
  });

  const emit = (out: WireResponsesEvent[], event: DistributiveOmit<WireResponsesEvent, 'sequence_number'>): void => {
    out.push({ ...event, sequence_number: sequence++ });
  };

  const closeOpen = (out: WireResponsesEvent[]): void => {
    if (open === undefined) return;
    const { item } = open;
    const text = open.text.toString();
    const index = output.indexOf(item);
    if (open.kind === 'message') {
      const part = { type: 'output_text' as const, text, annotations: [], logprobs: [] };
      emit(out, { type: 'response.output_text.done', item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] });
      emit(out, { type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part });
      open.item.content = [part];
      open.item.status = 'completed';
    } else {
      const part = { type: 'reasoning_text' as const, text };
      emit(out, { type: 'response.reasoning_text.done', item_id: item.id, output_index: index, content_index: 0, text });
      emit(out, { type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part });
      open.item.content = [part];
      open.item.status = 'completed';
    }
    emit(out, { type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
    open = undefined;
  };

  const textDelta = (out: WireResponsesEvent[], kind: 'text' | 'reasoning', delta: string): void => {
    if (delta === '') return;
    if (queue.length > 0) {
      heldDeltas.push({ kind, delta });
      return;
    }
    const wanted = kind === 'text' ? 'message' : 'reasoning';
    if (open !== undefined && open.kind !== wanted) closeOpen(out);
    if (open === undefined) {
      const index = output.length;
      if (wanted === 'message') {
        const item: WireMessageItem = { type: 'message', id: newId('msg_'), status: 'in_progress', role: 'assistant', content: [] };
        output.push(item);
        open = { kind: 'message', item, text: new FlatText() };
        emit(out, { type: 'response.output_item.added', output_index: index, item: structuredClone(item) });
        emit(out, { type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
      } else {
        const item: WireReasoningItem = { type: 'reasoning', id: newId('rs_'), summary: [], content: [], status: 'in_progress' };
        output.push(item);
        open = { kind: 'reasoning', item, text: new FlatText() };
        emit(out, { type: 'response.output_item.added', output_index: index, item: structuredClone(item) });
        emit(out, { type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
      }
    }
    open.text.add(delta);
    const index = output.indexOf(open.item);
    if (open.kind === 'message') emit(out, { type: 'response.output_text.delta', item_id: open.item.id, output_index: index, content_index: 0, delta, logprobs: [] });
    else emit(out, { type: 'response.reasoning_text.delta', item_id: open.item.id, output_index: index, content_index: 0, delta });
  };

  const header = (out: WireResponsesEvent[], p: PendingCall): void => {
    closeOpen(out);
    p.headerSent = true;
    p.outputIndex = output.length;
    const item: WireOutputItem =
      p.shape.kind === 'custom'
        ? { type: 'custom_tool_call', id: p.itemId, call_id: p.callId, name: p.name, input: '', status: 'in_progress' }
        : { type: 'function_call', id: p.itemId, call_id: p.callId, name: p.name, arguments: '', status: 'in_progress' };
    if (p.shape.namespace !== undefined) item.namespace = p.shape.namespace;
    output.push(item);
    emit(out, { type: 'response.output_item.added', output_index: p.outputIndex, item: structuredClone(item) });
  };

  const complete = (out: WireResponsesEvent[], p: PendingCall): void => {
    const item = output[p.outputIndex] as WireFunctionCallItem | WireCustomToolCallItem;
    if (item.type === 'custom_tool_call') {
      const value = p.call?.arguments[CUSTOM_TOOL_INPUT];
      const input = typeof value === 'string' ? value : (p.call?.invalid?.rawArguments ?? p.text.toString());
      if (input !== '') emit(out, { type: 'response.custom_tool_call_input.delta', item_id: item.id, output_index: p.outputIndex, delta: input });
      emit(out, { type: 'response.custom_tool_call_input.done', item_id: item.id, output_index: p.outputIndex, input });
      item.input = input;
    } else {
      let args = p.text.toString();
      if (args === '') {
        args = JSON.stringify(p.call?.arguments ?? {});
        emit(out, { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: p.outputIndex, delta: args });
      }
      emit(out, { type: 'response.function_call_arguments.done', item_id: item.id, output_index: p.outputIndex, name: item.name, arguments: args });
      item.arguments = args;
    }
    item.status = 'completed';
    emit(out, { type: 'response.output_item.done', output_index: p.outputIndex, item: structuredClone(item) });
  };

  // Puts out every complete call at the head of the queue, the header and held text of the next open one, then held text.
  const drain = (out: WireResponsesEvent[], force: boolean): void => {
    for (let head = queue[0]; head !== undefined; head = queue[0]) {
      if (!head.headerSent) header(out, head);
      if (head.held !== '' && head.shape.kind === 'function') {
        emit(out, { type: 'response.function_call_arguments.delta', item_id: head.itemId, output_index: head.outputIndex, delta: head.held });
        head.held = '';
      }
      if (head.call === undefined && !force) return;
      complete(out, head);
      queue.shift();
      byId.delete(head.callId);
    }
    const deltas = heldDeltas.splice(0);
    for (const { kind, delta } of deltas) textDelta(out, kind, delta);
  };

  const startCall = (callId: string, name: string): PendingCall => {
    const shape = tools.get(name) ?? { kind: 'function' };
    const pending: PendingCall = { callId, name, shape, itemId: newId(shape.kind === 'custom' ? 'ctc_' : 'fc_'), outputIndex: -1, headerSent: false, held: '', text: new FlatText() };
    queue.push(pending);
    byId.set(callId, pending);
    return pending;
  };

  return {
    get finished() {
      return finished;
    },
    response: snapshot,
    start() {
      const out: WireResponsesEvent[] = [];
      emit(out, { type: 'response.created', response: snapshot() });
      emit(out, { type: 'response.in_progress', response: snapshot() });
      return out;
    },
    push(event) {
      const out: WireResponsesEvent[] = [];
      if (finished) return out;
      switch (event.type) {
        case 'text-delta':
          textDelta(out, 'text', event.delta);
          break;
        case 'reasoning-delta':
          textDelta(out, 'reasoning', event.delta);
          break;
        case 'tool-call-start':
          if (!byId.has(event.id)) startCall(event.id, event.name);
          drain(out, false);
          break;
        case 'tool-call-delta': {
          const pending = byId.get(event.id);
          if (pending === undefined || event.argumentsDelta === '') break;
          pending.text.add(event.argumentsDelta);
          // Freeform input is the decoded `input` argument: it goes out once the call is complete.
          if (pending.shape.kind === 'function' && queue[0] === pending && pending.headerSent) {
            emit(out, { type: 'response.function_call_arguments.delta', item_id: pending.itemId, output_index: pending.outputIndex, delta: event.argumentsDelta });
          } else pending.held += event.argumentsDelta;
          break;
        }
        case 'tool-call': {
          const pending = byId.get(event.toolCall.id) ?? startCall(event.toolCall.id, event.toolCall.name);
          pending.call = event.toolCall;
          drain(out, false);
          break;
        }
        case 'finish': {
          drain(out, true);
          closeOpen(out);
          usage = toResponsesUsage(event.usage);
          const reason = incompleteReason(event.finishReason);
          // Calls the client must answer make a complete response, whatever cut the turn.
          const hasCalls = output.some((item) => item.type === 'function_call' || item.type === 'custom_tool_call');
          if (reason === undefined || (hasCalls && reason === 'content_filter')) {
            status = 'completed';
            completedAt = Math.floor(Date.now() / 1000);
            emit(out, { type: 'response.completed', response: snapshot() });
          } else {
            status = 'incomplete';
            incomplete = { reason };
            emit(out, { type: 'response.incomplete', response: snapshot() });
          }
          finished = true;
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
      return out;
    },
    fail(failure) {
      const out: WireResponsesEvent[] = [];
      if (finished) return out;
      finished = true;
      status = 'failed';
      error = { code: failure.code, message: failure.message };
      emit(out, { type: 'error', code: failure.code, message: failure.message, param: failure.param });
      emit(out, { type: 'response.failed', response: snapshot() });
      return out;
    },
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
