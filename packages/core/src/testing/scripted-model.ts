import { collectStream } from '../collect-stream.ts';
import type { ChatModel } from '../types/chat-model.ts';
import type { ChatRequest } from '../types/chat-request.ts';
import type { ChatResponse } from '../types/chat-response.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import { toChatResponse, toStreamEvents } from './scripted-response.ts';
import type { ScriptedResponse } from './scripted-response.ts';
import { ScriptExhaustedError } from './testing-errors.ts';

/**
 * One answer of a scripted model: a response in short, a list of stream events
 * (`generate` collects them), an error to throw, or a function of the request that
 * returns one of those (it may wait, e.g. on `request.signal`).
 */
export type ScriptedStep =
  | ScriptedResponse
  | { events: ChatStreamEvent[] }
  | { error: Error }
  | ((request: ChatRequest, callIndex: number) => ScriptedStep | Promise<ScriptedStep>);

/** Options of `createScriptedModel`. */
export interface ScriptedModelOptions {
  /** Default `'scripted'`. */
  provider?: string;
  /** Default `'scripted-model'`. */
  modelId?: string;
  /** Characters per `text-delta` / `tool-call-delta` when streaming a `ScriptedResponse` (default 16). */
  chunkSize?: number;
}

/** One call a scripted model received. */
export interface ScriptedCall {
  method: 'generate' | 'stream';
  request: ChatRequest;
}

/** A `ChatModel` that answers from a script and records what it was asked. */
export interface ScriptedModel extends ChatModel {
  /** Every call so far, in order (`request.messages` is a copy taken at call time). */
  readonly calls: readonly ScriptedCall[];
  /** The requests of `calls`, for short assertions. */
  readonly requests: readonly ChatRequest[];
  /** Steps not used yet. */
  readonly remaining: number;
}

/**
 * A `ChatModel` for tests: the n-th call (to `generate` or `stream`) answers with
 * `steps[n]`. Both methods serve every step kind: a `ScriptedResponse` is streamed as
 * chunked deltas, and event lists are collected for `generate`. A call past the end throws
 * `ScriptExhaustedError`; an aborted `request.signal` rejects with its reason.
 *
 * @example
 * const model = createScriptedModel([
 *   { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
 *   { text: 'It is sunny in Paris.' },
 * ]);
 * const result = await runTools({ model, messages, tools: [getWeather] });
 * expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool' });
 */
export function createScriptedModel(steps: readonly ScriptedStep[], options: ScriptedModelOptions = {}): ScriptedModel {
  const calls: ScriptedCall[] = [];
  const chunkSize = options.chunkSize ?? 16;

  const next = async (method: ScriptedCall['method'], request: ChatRequest): Promise<ResolvedStep> => {
    const index = calls.length;
    calls.push({ method, request: { ...request, messages: [...request.messages] } });
    request.signal?.throwIfAborted();
    const step = steps[index];
    if (step === undefined) throw new ScriptExhaustedError({ callNumber: index + 1, steps: steps.length });
    let resolved: ScriptedStep = step;
    while (typeof resolved === 'function') resolved = await resolved(request, index);
    request.signal?.throwIfAborted();
    if ('error' in resolved) throw resolved.error;
    if ('events' in resolved) return { kind: 'events', events: resolved.events };
    return { kind: 'response', response: toChatResponse(resolved, index) };
  };

  return {
    provider: options.provider ?? 'scripted',
    modelId: options.modelId ?? 'scripted-model',
    get calls() {
      return calls;
    },
    get requests() {
      return calls.map((call) => call.request);
    },
    get remaining() {
      return Math.max(0, steps.length - calls.length);
    },
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const step = await next('generate', request);
      return step.kind === 'response' ? step.response : collectStream(fromList(step.events, request.signal));
    },
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      const step = await next('stream', request);
      yield* fromList(step.kind === 'response' ? toStreamEvents(step.response, chunkSize) : step.events, request.signal);
    },
  };
}

type ResolvedStep = { kind: 'response'; response: ChatResponse } | { kind: 'events'; events: ChatStreamEvent[] };

/** Yields `events` one by one (a macrotask apart, like a network stream), stopping on abort. */
export async function* fromList(events: readonly ChatStreamEvent[], signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
  for (const event of events) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    yield event;
  }
}
