import { AnswerLimit } from './answer-limit.ts';
import { newResponseCollector } from './collect-stream.ts';
import type { ResponseCollector } from './collect-stream.ts';
import { resolveRunAnswerLimits, runToolLoop, RUN_TOOLS_ANSWER_SETTINGS } from './run-tools-loop.ts';
import type { RunToolsOptions, RunToolsResult } from './run-tools-types.ts';
import type { ChatRequest } from './types/chat-request.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';
import { NEXT_THEN, nextThen } from './provider/next-then.ts';

/** What `runToolsStream` returns: the events of every step, and the run's outcome. */
export interface RunToolsStream extends AsyncIterable<ChatStreamEvent> {
  /** Settles when the run ends, like `runTools`'s promise (it runs whether or not you iterate). */
  readonly result: Promise<RunToolsResult>;
}

/**
 * The streaming form of `runTools` (same options, same stopping rules). Iterating yields
 * each step's model events as they arrive (a `finish` per step, `finishReason:
 * 'tool-calls'` for steps that led to tool calls) and a `tool-result` event for every call
 * run here, as soon as it completes. `result` resolves with the same `RunToolsResult`.
 *
 * The run starts when you iterate or read `result`, and events are buffered until you
 * read them. A model failure after events went out ends the iteration with an `error`
 * event (and rejects `result`); a failure before any event, or an abort, rejects the
 * iteration's `next()`. Leaving the loop early (`break`) aborts the run. Iterate it once:
 * every iterator reads from the same buffer.
 *
 * @example
 * const run = runToolsStream({ model, messages, tools: [getWeather] });
 * for await (const event of run) if (event.type === 'text-delta') process.stdout.write(event.delta);
 * const { stoppedBy } = await run.result;
 */
/**
 * Past this many events waiting for the consumer, the model stream is not read until the
 * consumer has taken half of them: a client that reads slowly holds back the upstream (its
 * socket, then TCP) instead of the whole answer piling up here. Only while someone iterates:
 * a run read through `result` alone runs to its end.
 */
const HIGH_WATER_EVENTS = 256;

export function runToolsStream(options: RunToolsOptions): RunToolsStream {
  return new ToolsRunStream(options);
}

// A class, not a closure per step: a run is held by every open stream for its whole length.
// It is its own iterator (every iterator of a run reads the same buffer), and it reads the
// model stream of the step under way itself (a run makes one model call at a time): no
// reader object, callbacks and promise per step besides the step's own promise.
class ToolsRunStream implements RunToolsStream, AsyncIterator<ChatStreamEvent> {
  readonly #options: RunToolsOptions;
  /** The answer under way counted against `maxAnswerChars` / `maxToolCallsPerAnswer`; undefined when both are off. */
  #limit: AnswerLimit | undefined;
  /** The run's signal: the caller's, and the consumer leaving early. (Cheaper than `AbortSignal.any` per run.) */
  readonly #own = new AbortController();
  readonly #queue: ChatStreamEvent[] = [];
  #done = false;
  #failure: { error: unknown } | undefined;
  #delivered = false;
  #started: Promise<RunToolsResult> | undefined;
  #iterating = false;
  #sawError = false;
  /** Whether the model stream's next read is held back while the consumer is `HIGH_WATER_EVENTS` behind. */
  #paused = false;
  /**
   * The consumer waiting while nothing was ready, told as soon as something is: a `next()`
   * (its promise's settling functions as the callbacks), or a `NEXT_THEN` (its callbacks, and
   * its promise's settling functions in `#waitResolve` / `#waitReject`). Fields, not an
   * object per wait: a stream waits between any two tokens.
   */
  #waitResult: ((result: IteratorResult<ChatStreamEvent>) => unknown) | undefined;
  #waitFailure: ((error: unknown) => unknown) | undefined;
  #waitResolve: ((value: unknown) => void) | undefined;
  #waitReject: ((error: unknown) => void) | undefined;
  /**
   * The model stream of the step under way, its response so far and how its promise
   * settles; all undefined between steps and once the step settled (a read that answers
   * after an abort settled the step then finds nothing to do).
   */
  #model: AsyncIterator<ChatStreamEvent> | undefined;
  #collector: ResponseCollector | undefined;
  #resolveStep: ((response: ChatResponse) => void) | undefined;
  #rejectStep: ((error: unknown) => void) | undefined;
  readonly #onCallerAbort = (): void => this.#abort(this.#options.signal?.reason);
  readonly #onModelNext = (next: IteratorResult<ChatStreamEvent>): void => {
    const collector = this.#collector;
    if (collector === undefined) return;
    const signal = this.#own.signal;
    if (signal.aborted) return this.#settleStep({ error: signal.reason });
    if (next.done === true) return this.#settleStep(undefined);
    const event = next.value;
    let failure: { error: unknown } | undefined;
    try {
      // Read before `add`, which throws the error of an `error` event.
      if (event.type === 'error') this.#sawError = true;
      // Past a bound the step fails like a stream error, and the model stream is closed.
      this.#limit?.addEvent(event);
      collector.add(event);
    } catch (error) {
      failure = { error };
    }
    if (failure !== undefined) {
      // The step fails with the stream's error before the consumer hears of the event: a
      // `NEXT_THEN` consumer runs within `#push`, and may stop the run there. Something that
      // is not an event at all (a model without `guardStream` yielding `undefined`) only fails it.
      this.#settleStep(failure);
      if (typeof event === 'object' && (event as ChatStreamEvent | null) !== null) this.#push(event);
      return;
    }
    this.#push(event);
    // The consumer stopped the run while it took the event (see above): nothing more to read.
    if (this.#collector !== collector) return;
    if (!this.#iterating || this.#queue.length < HIGH_WATER_EVENTS) this.#readModel();
    else this.#paused = true;
  };
  readonly #onModelFailure = (error: unknown): void => this.#settleStep({ error });

  constructor(options: RunToolsOptions) {
    this.#options = options;
  }

  get result(): Promise<RunToolsResult> {
    return this.#start();
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatStreamEvent> {
    this.#iterating = true;
    void this.#start();
    return this;
  }

  // Not an async function: an event already queued costs one resolved promise, a wait one promise.
  next(): Promise<IteratorResult<ChatStreamEvent>> {
    const event = this.#queue.shift();
    if (event !== undefined) {
      this.#delivered = true;
      this.#took();
      return Promise.resolve({ value: event, done: false });
    }
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the run's failure (or abort reason), passed on as it is
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error);
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waitResult = resolve;
      this.#waitFailure = reject;
      // A `NEXT_THEN` read still waiting (two reads at once, which the iterator protocol does
      // not allow) is replaced, as an earlier `next()` is: it stays pending, and this one gets the event.
      this.#waitResolve = undefined;
      this.#waitReject = undefined;
    });
  }

  /**
   * `next().then(onResult, onFailure)` without the promise of `next()` and the reaction to it
   * while the consumer waits (see `NEXT_THEN`): the callbacks wait in fields and run when the
   * event arrives, in the reaction that brought it. Anything ready, or a `next()` already
   * waiting, takes the plain way.
   */
  [NEXT_THEN]<R>(onResult: (result: IteratorResult<ChatStreamEvent>) => R | PromiseLike<R>, onFailure: (error: unknown) => R | PromiseLike<R>): Promise<R> {
    if (this.#queue.length > 0 || this.#failure !== undefined || this.#done || this.#waitResult !== undefined) return this.next().then(onResult, onFailure);
    return new Promise<R>((resolve, reject) => {
      this.#waitResult = onResult;
      this.#waitFailure = onFailure;
      this.#waitResolve = resolve as (value: unknown) => void;
      this.#waitReject = reject;
    });
  }

  return(): Promise<IteratorResult<ChatStreamEvent>> {
    if (!this.#done) this.#abort(new DOMException('The stream consumer stopped reading.', 'AbortError'));
    this.#queue.length = 0;
    // The abort ends a paused read; nothing resumes it.
    this.#paused = false;
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Aborts the run; the step under way stops waiting for its model stream at once. */
  #abort(reason: unknown): void {
    const signal = this.#own.signal;
    this.#own.abort(reason);
    this.#settleStep({ error: signal.reason });
  }

  /** After the consumer took an event: reads on once it is half-way through the backlog. */
  #took(): void {
    if (!this.#paused || this.#queue.length > HIGH_WATER_EVENTS / 2) return;
    this.#paused = false;
    if (this.#model !== undefined) this.#readModel();
  }

  /** Hands a waiting consumer what it waits for: the next event, the failure, or the end. */
  #wake(): void {
    if (this.#waitResult === undefined) return;
    const event = this.#queue.shift();
    if (event !== undefined) {
      this.#delivered = true;
      this.#handOver(false, { value: event, done: false });
      this.#took();
    } else if (this.#failure !== undefined) {
      this.#handOver(true, this.#failure.error);
    } else if (this.#done) {
      this.#handOver(false, { value: undefined, done: true });
    }
  }

  #push(event: ChatStreamEvent): void {
    if (this.#waitResult !== undefined && this.#queue.length === 0) {
      // What `#wake` would do with this one event, without it passing through the queue (on every token).
      this.#delivered = true;
      this.#handOver(false, { value: event, done: false });
      this.#took();
      return;
    }
    this.#queue.push(event);
    this.#wake();
  }

  /**
   * Tells the waiting consumer (forgotten first: it may read again right away): a `next()`
   * settles; a `NEXT_THEN`'s callback runs here and its promise settles with what it returns
   * (or throws).
   */
  #handOver(failed: boolean, outcome: unknown): void {
    const onResult = this.#waitResult as (result: IteratorResult<ChatStreamEvent>) => unknown;
    const onFailure = this.#waitFailure as (error: unknown) => unknown;
    const resolve = this.#waitResolve;
    const reject = this.#waitReject;
    this.#waitResult = undefined;
    this.#waitFailure = undefined;
    this.#waitResolve = undefined;
    this.#waitReject = undefined;
    if (resolve === undefined || reject === undefined) {
      if (failed) onFailure(outcome);
      else onResult(outcome as IteratorResult<ChatStreamEvent>);
      return;
    }
    try {
      resolve(failed ? onFailure(outcome) : onResult(outcome as IteratorResult<ChatStreamEvent>));
    } catch (error) {
      reject(error);
    }
  }

  #start(): Promise<RunToolsResult> {
    if (this.#started) return this.#started;
    const options = this.#options;
    const signal = this.#own.signal;
    const callerSignal = options.signal;
    // Linked when the run starts and unlinked when it ends, so a run never started holds nothing.
    if (callerSignal?.aborted === true) this.#onCallerAbort();
    else callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    const started = runToolLoop({
      options,
      signal,
      onToolResult: (result) => this.#push({ type: 'tool-result', result }),
      callModel: (request) => this.#callModel(request),
    }).then(
      (result) => {
        callerSignal?.removeEventListener('abort', this.#onCallerAbort);
        this.#done = true;
        this.#wake();
        return result;
      },
      (error: unknown) => {
        callerSignal?.removeEventListener('abort', this.#onCallerAbort);
        this.#done = true;
        // An abort always rejects the iteration; other failures become a final `error`
        // event once events went out (the ChatModel stream convention).
        if (signal.aborted || !(this.#delivered || this.#queue.length > 0)) this.#failure = { error };
        else if (!this.#sawError) this.#queue.push({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });
        this.#wake();
        throw error;
      },
    );
    this.#started = started;
    started.catch(noop);
    return started;
  }

  /**
   * One step's model call: its stream read to the end, each event passed on (and its
   * `error` thrown), settling with the response; it stops waiting as soon as the run
   * aborts. Stopped early (an abort, the stream failing), it lets the stream clean up.
   * Not an async function: its frame would stay suspended for the whole stream.
   */
  #callModel(request: ChatRequest): Promise<ChatResponse> {
    const events = this.#options.model.stream(request);
    this.#own.signal.throwIfAborted();
    const iterator = events[Symbol.asyncIterator]();
    return new Promise<ChatResponse>((resolve, reject) => {
      this.#model = iterator;
      this.#collector = newResponseCollector();
      // Checked when the run started (a bad option rejects it before any model call).
      const limits = resolveRunAnswerLimits(this.#options);
      this.#limit = limits.maxChars > 0 || limits.maxToolCalls > 0 ? new AnswerLimit({ ...limits, settings: RUN_TOOLS_ANSWER_SETTINGS }) : undefined;
      this.#resolveStep = resolve;
      this.#rejectStep = reject;
      this.#readModel();
    });
  }

  /**
   * The model stream's next event, handed to `#onModelNext`: per event only the source's
   * own `next()` promise and one reaction to it (no generator, no await, no wrapper promise
   * in between), or none where the source chains (see `NEXT_THEN`).
   */
  #readModel(): void {
    try {
      void nextThen(this.#model as AsyncIterator<ChatStreamEvent>, this.#onModelNext, this.#onModelFailure);
    } catch (error) {
      this.#settleStep({ error });
    }
  }

  /** Ends the step under way (if any): resolved with its response, or rejected with the failure after the model stream was told to stop. */
  #settleStep(failure: { error: unknown } | undefined): void {
    const model = this.#model;
    const collector = this.#collector;
    const resolve = this.#resolveStep;
    const reject = this.#rejectStep;
    if (model === undefined || collector === undefined || resolve === undefined || reject === undefined) return;
    this.#model = undefined;
    this.#collector = undefined;
    this.#resolveStep = undefined;
    this.#rejectStep = undefined;
    if (failure === undefined) {
      let response: ChatResponse;
      try {
        response = collector.response();
      } catch (error) {
        reject(error);
        return;
      }
      resolve(response);
      return;
    }
    // Stopped before the end: let the model stream clean up (a throwing `return` changes nothing).
    try {
      void model.return?.()?.catch(noop);
    } catch {
      // Nothing more to release.
    }
    reject(failure.error);
  }
}

function noop(): void {
  // Rejections are delivered through `result` and the iterator.
}
