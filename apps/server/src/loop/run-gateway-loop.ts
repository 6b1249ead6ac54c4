import { runTools, runToolsStream } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatStreamEvent, RunToolsOptions, RunToolsResult, RunToolsStream, ToolCallAudit, ToolMessage, ToolRegistry } from '@toolwire/core';
import { NEXT_THEN, nextThen } from '@toolwire/core/provider';
import type { HiddenToolTurn } from '../hidden-tool-turns.ts';
import { createClientView } from './client-view.ts';
import type { ClientView } from './client-view.ts';

/** The bounds on each model answer: core's `maxAnswerChars` and `maxToolCallsPerAnswer`, as the providers take them too. */
export type AnswerBounds = Pick<RunToolsOptions, 'maxAnswerChars' | 'maxToolCallsPerAnswer'>;

/** Options of `runGatewayLoop`. */
export interface GatewayLoopOptions {
  model: ChatModel;
  /** The request as the model should see it: the client's functions and the server tools (core `Tool`s) together. */
  request: ChatRequest;
  /** Names of the client's own functions in `request.tools`: their calls go back to the client. */
  clientTools: ReadonlySet<string>;
  /** The server tools, run through core's `executeToolCall` (permissions, concurrency cap, validation). */
  registry: ToolRegistry;
  /** The API key id, for the registry's permissions and the audit. */
  principal: string;
  signal: AbortSignal;
  /** Time allowed per server-tool call. */
  toolTimeoutMs?: number;
  /** Told about every server-tool call once answered. */
  onToolAudit?: (audit: ToolCallAudit) => void;
  /** Model calls per client request (default 8). */
  maxSteps?: number;
  /** The bounds on each model answer (core's defaults when absent). */
  answerLimits?: AnswerBounds;
  /** Stream from the model (`true`) or call `generate` (`false`). */
  stream: boolean;
  /**
   * Told about a last turn that called server and client tools together: the server
   * calls ran, the client gets only its own, and this is the rest of the turn. The closing
   * `finish` waits for a promise it returns (the turn kept in shared state), so that the
   * client's next request, on whichever instance, finds the turn; the promise must settle
   * (a bounded write) and should not reject.
   */
  onHiddenTurn?: (turn: HiddenToolTurn) => void | PromiseLike<void>;
}

/** The options of core's loop for this request: the client's functions stay without handlers. */
function loopOptions(options: GatewayLoopOptions): RunToolsOptions {
  const { messages, tools, toolChoice, parallelToolCalls, signal: _signal, ...settings } = options.request;
  return {
    model: options.model,
    messages,
    tools: tools ?? [],
    registry: options.registry,
    principal: options.principal,
    maxSteps: options.maxSteps ?? 8,
    ...options.answerLimits,
    signal: options.signal,
    settings,
    ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
    ...(options.onToolAudit === undefined ? {} : { onToolAudit: options.onToolAudit }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(parallelToolCalls === undefined ? {} : { parallelToolCalls }),
  };
}

/** A finished run's steps as the events a stream of it would have had. */
function* stepEvents(result: RunToolsResult): Generator<ChatStreamEvent> {
  for (const step of result.steps) {
    const { response } = step;
    if (response.reasoning !== undefined && response.reasoning !== '') yield { type: 'reasoning-delta', delta: response.reasoning };
    if (response.text !== '') yield { type: 'text-delta', delta: response.text };
    for (const warning of response.warnings) yield { type: 'warning', warning };
    for (const toolCall of response.toolCalls) yield { type: 'tool-call', toolCall };
    yield { type: 'finish', finishReason: response.finishReason, ...(response.usage === undefined ? {} : { usage: response.usage }) };
  }
}

/**
 * The hidden half of a last turn that also called client tools: the calls the loop
 * answered itself (server tools, and unknown tools or unreadable arguments it refused) and
 * their results, with the client's ids on the client's calls.
 */
function hiddenTurn(result: RunToolsResult, clientId: (id: string) => string): HiddenToolTurn | undefined {
  const step = result.steps.at(-1);
  if (step === undefined || result.stoppedBy !== 'client-tool-calls') return undefined;
  const pending = new Set(step.pendingToolCalls.map((call) => call.id));
  const answeredHere = new Set(step.toolCalls.filter((call) => call.providerExecuted !== true && !pending.has(call.id)).map((call) => call.id));
  const results = result.newMessages.filter((message): message is ToolMessage => message.role === 'tool' && answeredHere.has(message.toolCallId));
  if (results.length === 0) return undefined;
  return {
    clientCallIds: step.pendingToolCalls.map((call) => clientId(call.id)),
    toolCalls: step.toolCalls.filter((call) => call.providerExecuted !== true).map((call) => (pending.has(call.id) ? { ...call, id: clientId(call.id) } : call)),
    results,
  };
}

/**
 * The gateway's tool loop, as one event stream for the client: core's `runTools` /
 * `runToolsStream` with the server tools run through the registry and the client's
 * functions without handlers, seen through the client's view (`createClientView`): server
 * calls and their results stay hidden, client calls stream out as they arrive with
 * `call_…` ids, and the last event is one `finish` (usage summed over the steps) or an `error`.
 *
 * A last turn that called server and client tools together runs the server calls and
 * returns the client's; `onHiddenTurn` gets the rest, so the next request can restore it.
 * When `maxSteps` runs out the text so far is the answer (finish reason `stop`).
 */
export function runGatewayLoop(options: GatewayLoopOptions): AsyncGenerator<ChatStreamEvent> {
  return options.stream ? new StreamedGatewayLoop(options) : generatedLoop(options);
}

/** The loop over `runTools` (no streaming from the model): its steps replayed as events. */
async function* generatedLoop(options: GatewayLoopOptions): AsyncGenerator<ChatStreamEvent> {
  const events = await runGatewayLoopOnce(options);
  // One plain loop: `yield*` of an array inside an async generator wraps each value in an async-from-sync step.
  for (const event of events) yield event;
}

/**
 * The gateway's tool loop without streaming from the model (`runTools`, `options.stream`
 * ignored): every event the client sees, the closing `finish` last, once the run is over.
 * The same events as `runGatewayLoop` with `stream: false`, in one array: a non-streamed
 * answer is built from them at once, without an async generator step (a promise and a
 * microtask turn or more) per event on the way.
 */
export async function runGatewayLoopOnce(options: GatewayLoopOptions): Promise<ChatStreamEvent[]> {
  const view = createClientView(options.clientTools);
  const result = await runTools(loopOptions(options));
  const out: ChatStreamEvent[] = [];
  for (const event of stepEvents(result)) view.map(event, out);
  const turn = hiddenTurn(result, (id) => view.clientId(id));
  if (turn !== undefined) {
    const kept = options.onHiddenTurn?.(turn);
    if (kept !== undefined) await kept;
  }
  out.push(view.finish(result));
  return out;
}

type Result = IteratorResult<ChatStreamEvent, undefined>;

// What one event maps to, for every stream: `#took` fills and empties it within one
// synchronous call (an array per open stream would be kept for its whole length).
const mapped: ChatStreamEvent[] = [];

const DONE: Result = { value: undefined, done: true };

/**
 * The loop over `runToolsStream`, seen through the client's view. An iterator rather than
 * an async generator: this is on the path of every token of every stream, and a
 * generator's `for await` and `yield` cost several promises per event; here an event costs
 * the run's `next()` and one reaction. Leaving early (or an `error` event, or a client call
 * that ends the turn) stops the run. Call `next()` once at a time, as `for await` does.
 */
class StreamedGatewayLoop implements AsyncGenerator<ChatStreamEvent, undefined> {
  /** What the run starts from: let go once it started (the run keeps what it needs of it). */
  #options: GatewayLoopOptions | undefined;
  readonly #onHiddenTurn: GatewayLoopOptions['onHiddenTurn'];
  readonly #view: ClientView;
  #run: RunToolsStream | undefined;
  #iterator: AsyncIterator<ChatStreamEvent> | undefined;
  readonly #queue: ChatStreamEvent[] = [];
  #state: 'running' | 'finishing' | 'done' = 'running';
  /** Set by `return`: nothing more is handed out. */
  #left = false;
  readonly #onEvent = (next: IteratorResult<ChatStreamEvent>): Result | Promise<Result> => this.#took(next);
  readonly #onFailure = (error: unknown): Result => {
    this.#state = 'done';
    if (this.#left) return DONE;
    throw error;
  };

  constructor(options: GatewayLoopOptions) {
    this.#options = options;
    this.#onHiddenTurn = options.onHiddenTurn;
    this.#view = createClientView(options.clientTools);
  }

  next(): Promise<Result> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
    if (this.#state !== 'running') return Promise.resolve(DONE);
    return this.#runIterator().next().then(this.#onEvent, this.#onFailure);
  }

  /**
   * `next().then(onResult, onFailure)` without this loop's own promise per event (core's
   * `NEXT_THEN`): the caller's callbacks run in the reaction to the run's event. They wait in
   * two fields (no object per event); anything but the usual case takes the plain way.
   */
  [NEXT_THEN]<R>(onResult: (result: Result) => R | PromiseLike<R>, onFailure: (error: unknown) => R | PromiseLike<R>): Promise<R> {
    if (this.#queue.length > 0 || this.#state !== 'running' || this.#chainedResult !== undefined) return this.next().then(onResult, onFailure);
    const iterator = this.#runIterator();
    this.#chainedResult = onResult;
    this.#chainedFailure = onFailure;
    try {
      // Through the run's own `NEXT_THEN`: the event reaches `#onChainedEvent` in the reaction that brought it.
      return nextThen(iterator, this.#onChainedEvent, this.#onChainedFailure) as Promise<R>;
    } catch (error) {
      this.#chainedResult = undefined;
      this.#chainedFailure = undefined;
      throw error;
    }
  }

  /** The callbacks of the waiting `NEXT_THEN`. */
  #chainedResult: ((result: Result) => unknown) | undefined;
  #chainedFailure: ((error: unknown) => unknown) | undefined;

  /** What `.then(onResult, onFailure)` on `#onEvent`'s promise would do, without that promise. */
  readonly #onChainedEvent = (next: IteratorResult<ChatStreamEvent>): unknown => {
    const onResult = this.#chainedResult as (result: Result) => unknown;
    const onFailure = this.#chainedFailure as (error: unknown) => unknown;
    // Handed over once (read into locals: no object per event).
    this.#chainedResult = undefined;
    this.#chainedFailure = undefined;
    let result: Result | Promise<Result>;
    try {
      result = this.#took(next);
    } catch (error) {
      return onFailure(error);
    }
    return result instanceof Promise ? result.then(onResult, onFailure) : onResult(result);
  };

  readonly #onChainedFailure = (error: unknown): unknown => {
    const onResult = this.#chainedResult as (result: Result) => unknown;
    const onFailure = this.#chainedFailure as (error: unknown) => unknown;
    // Handed over once (read into locals: no object per event).
    this.#chainedResult = undefined;
    this.#chainedFailure = undefined;
    let result: Result;
    try {
      result = this.#onFailure(error);
    } catch (failure) {
      return onFailure(failure);
    }
    return onResult(result);
  };

  /** The run's iterator, the run started at the first read (as a generator would). */
  #runIterator(): AsyncIterator<ChatStreamEvent> {
    if (this.#iterator === undefined) {
      this.#run = runToolsStream(loopOptions(this.#options as GatewayLoopOptions));
      this.#options = undefined;
      this.#iterator = this.#run[Symbol.asyncIterator]();
    }
    return this.#iterator;
  }

  return(): Promise<Result> {
    this.#left = true;
    this.#queue.length = 0;
    this.#stop();
    return Promise.resolve(DONE);
  }

  throw(error: unknown): Promise<Result> {
    return this.return().then(() => Promise.reject(error instanceof Error ? error : new Error(String(error))));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  /**
   * `next()` for `#took`: an event already queued is handed back as it is, not in a promise
   * (a reaction that returns a promise costs two more microtask turns, per token).
   */
  #after(): Result | Promise<Result> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return { value: queued, done: false };
    return this.next();
  }

  /** Ends the iteration; a run still going is stopped (leaving its iterator aborts it). */
  #stop(): void {
    const running = this.#state === 'running';
    this.#state = 'done';
    if (running) void this.#iterator?.return?.()?.catch(() => undefined);
  }

  #took(next: IteratorResult<ChatStreamEvent>): Result | Promise<Result> {
    if (this.#left) return DONE;
    const view = this.#view;
    if (next.done === true) {
      // The run ended: its outcome gives the hidden half of a mixed turn and the closing finish.
      this.#state = 'finishing';
      return (this.#run as RunToolsStream).result.then((result) => {
        this.#state = 'done';
        // The hidden turn is kept even when the caller left meanwhile (the run did finish); the finish is not handed out then.
        const turn = hiddenTurn(result, (id) => view.clientId(id));
        // Called on its own, not as a method of this loop (its `this` is not the caller's business).
        const onHiddenTurn = this.#onHiddenTurn;
        const kept = turn === undefined || onHiddenTurn === undefined ? undefined : onHiddenTurn(turn);
        const finish = (): Result => (this.#left ? DONE : { value: view.finish(result), done: false });
        return kept === undefined ? finish() : Promise.resolve(kept).then(finish);
      }, this.#onFailure);
    }
    const event = next.value;
    const out = mapped;
    // A `map` that threw left its events behind. (Only then: setting the length of an empty
    // array to 0 drops its backing store, and the next push would allocate one, per token.)
    if (out.length !== 0) out.length = 0;
    view.map(event, out);
    // The usual event (a text delta passed on as it is, nothing queued): handed out without the queue.
    if (out.length === 1 && this.#queue.length === 0 && event.type !== 'finish') {
      const only = out[0] as ChatStreamEvent;
      if (only.type !== 'error') {
        out.pop();
        return { value: only, done: false };
      }
    }
    for (const one of out) {
      this.#queue.push(one);
      if (one.type === 'error') {
        this.#stop();
        break;
      }
    }
    out.length = 0;
    // A streamed client call the loop would answer itself is the client's now: its turn ends here (stopping the run).
    if (this.#state === 'running' && event.type === 'finish' && view.endsAfterStep) {
      this.#queue.push(view.finishAtStep());
      this.#stop();
    }
    return this.#after();
  }
}
