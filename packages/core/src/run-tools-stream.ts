import { createResponseCollector } from './collect-stream.ts';
import { runToolLoop } from './run-tools-loop.ts';
import type { RunToolsOptions, RunToolsResult } from './run-tools-types.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';
import { nextThen } from './provider/next-then.ts';

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

type Waiter = { resolve: (result: IteratorResult<ChatStreamEvent>) => void; reject: (error: unknown) => void };

// A class, not a closure per step: a run is held by every open stream for its whole length.
// It is its own iterator (every iterator of a run reads the same buffer).
class ToolsRunStream implements RunToolsStream, AsyncIterator<ChatStreamEvent> {
  readonly #options: RunToolsOptions;
  /** The run's signal: the caller's, and the consumer leaving early. (Cheaper than `AbortSignal.any` per run.) */
  readonly #own = new AbortController();
  readonly #queue: ChatStreamEvent[] = [];
  #done = false;
  #failure: { error: unknown } | undefined;
  #delivered = false;
  #started: Promise<RunToolsResult> | undefined;
  #iterating = false;
  #sawError = false;
  /** The model stream's next read, held back while the consumer is `HIGH_WATER_EVENTS` behind. */
  #paused: (() => void) | undefined;
  /** The consumer's `next()` while nothing was ready: settled as soon as something is. */
  #waiting: Waiter | undefined;
  readonly #onCallerAbort = (): void => this.#own.abort(this.#options.signal?.reason);
  readonly #mayRead = (resume: () => void): boolean => {
    if (!this.#iterating || this.#queue.length < HIGH_WATER_EVENTS) return true;
    this.#paused = resume;
    return false;
  };

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
      this.#waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<ChatStreamEvent>> {
    if (!this.#done) this.#own.abort(new DOMException('The stream consumer stopped reading.', 'AbortError'));
    this.#queue.length = 0;
    // The abort ends a paused read; nothing resumes it.
    this.#paused = undefined;
    return Promise.resolve({ value: undefined, done: true });
  }

  /** After the consumer took an event: reads on once it is half-way through the backlog. */
  #took(): void {
    if (this.#paused === undefined || this.#queue.length > HIGH_WATER_EVENTS / 2) return;
    const resume = this.#paused;
    this.#paused = undefined;
    resume();
  }

  /** Hands a waiting `next()` what it waits for: the next event, the failure, or the end. */
  #wake(): void {
    const waiter = this.#waiting;
    if (waiter === undefined) return;
    const event = this.#queue.shift();
    if (event !== undefined) {
      this.#waiting = undefined;
      this.#delivered = true;
      waiter.resolve({ value: event, done: false });
      this.#took();
    } else if (this.#failure !== undefined) {
      this.#waiting = undefined;
      waiter.reject(this.#failure.error);
    } else if (this.#done) {
      this.#waiting = undefined;
      waiter.resolve({ value: undefined, done: true });
    }
  }

  #push(event: ChatStreamEvent): void {
    const waiter = this.#waiting;
    if (waiter !== undefined && this.#queue.length === 0) {
      // What `#wake` would do with this one event, without it passing through the queue (on every token).
      this.#waiting = undefined;
      this.#delivered = true;
      waiter.resolve({ value: event, done: false });
      this.#took();
      return;
    }
    this.#queue.push(event);
    this.#wake();
  }

  #start(): Promise<RunToolsResult> {
    if (this.#started) return this.#started;
    const options = this.#options;
    const signal = this.#own.signal;
    const callerSignal = options.signal;
    // Linked when the run starts and unlinked when it ends, so a run never started holds nothing.
    if (callerSignal?.aborted === true) this.#onCallerAbort();
    else callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    const unlink = (): void => callerSignal?.removeEventListener('abort', this.#onCallerAbort);
    const started = runToolLoop({
      options,
      signal,
      onToolResult: (result) => this.#push({ type: 'tool-result', result }),
      // Not an async function: its frame would stay suspended for the whole stream.
      callModel: (request) => {
        const collector = createResponseCollector();
        return pump(
          options.model.stream(request),
          signal,
          (event) => {
            if (event.type === 'error') this.#sawError = true;
            this.#push(event);
            collector.add(event);
          },
          this.#mayRead,
        ).then(() => collector.response());
      },
    }).then(
      (result) => {
        unlink();
        this.#done = true;
        this.#wake();
        return result;
      },
      (error: unknown) => {
        unlink();
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
}

/**
 * Reads a model stream to its end, handing each event to `onEvent` (which may throw to
 * stop), and stops waiting as soon as `signal` aborts. One abort listener per stream, and
 * per event only the source's own `next()` promise and one reaction to it (no generator,
 * no await, no wrapper promise in between): events are the hot path. Stopped early (an
 * abort, `onEvent` throwing, the source failing), it lets the source clean up (`return`).
 * `mayRead` may hold back the next read: it keeps the function that resumes it (an abort
 * still settles at once).
 */
function pump(events: AsyncIterable<ChatStreamEvent>, signal: AbortSignal, onEvent: (event: ChatStreamEvent) => void, mayRead: (resume: () => void) => boolean): Promise<void> {
  signal.throwIfAborted();
  const iterator = events[Symbol.asyncIterator]();
  return new Promise<void>((resolve, reject) => {
    new ModelPump({ iterator, signal, onEvent, mayRead, resolve, reject }).step();
  });
}

/** What `ModelPump` reads, whom it tells, and how it settles. */
interface ModelPumpOptions {
  iterator: AsyncIterator<ChatStreamEvent>;
  signal: AbortSignal;
  onEvent: (event: ChatStreamEvent) => void;
  mayRead: (resume: () => void) => boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

// A class, not a closure per step: one is held by every open stream for its whole length.
class ModelPump {
  readonly #options: ModelPumpOptions;
  #settled = false;
  readonly #onAbort = (): void => this.#settle({ error: this.#options.signal.reason });
  readonly #onNext = (next: IteratorResult<ChatStreamEvent>): void => {
    if (this.#settled) return;
    const { signal, onEvent, mayRead } = this.#options;
    if (signal.aborted) return this.#settle({ error: signal.reason });
    if (next.done === true) return this.#settle(undefined);
    try {
      onEvent(next.value);
    } catch (error) {
      return this.#settle({ error });
    }
    if (mayRead(this.#resume)) this.step();
  };
  readonly #resume = (): void => {
    if (!this.#settled) this.step();
  };
  readonly #onFailure = (error: unknown): void => this.#settle({ error });

  constructor(options: ModelPumpOptions) {
    this.#options = options;
    options.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  step(): void {
    try {
      // The model stream's layers hand the event on in one turn when they can (see `NEXT_THEN`).
      void nextThen(this.#options.iterator, this.#onNext, this.#onFailure);
    } catch (error) {
      this.#settle({ error });
    }
  }

  #settle(failure: { error: unknown } | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    const { signal, iterator, resolve, reject } = this.#options;
    signal.removeEventListener('abort', this.#onAbort);
    if (failure === undefined) {
      resolve();
      return;
    }
    // Stopped before the end: let the model stream clean up (a throwing `return` changes nothing).
    try {
      void iterator.return?.()?.catch(noop);
    } catch {
      // Nothing more to release.
    }
    reject(failure.error);
  }
}

function noop(): void {
  // Rejections are delivered through `result` and the iterator.
}
