import { StreamError } from '../errors.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import { NEXT_THEN, handOn, nextThen } from './next-then.ts';
import type { NextThenCallbacks } from './next-then.ts';

/** Options of `guardStream`. */
export interface GuardStreamOptions {
  /** Named in the errors the guard raises. */
  provider: string;
}

/**
 * Holds a provider's stream to the `ChatModel.stream` contract: a failure before the first
 * event is thrown (from the first `next()`), a failure after it becomes one `error` event;
 * a tool call goes `tool-call-start` → `tool-call-delta`s → one `tool-call` (a missing start
 * is added, a delta or a second `tool-call` for an unknown or finished id is a `StreamError`);
 * exactly one terminal event (`finish` or `error`) comes last, and a source that ends
 * without one ends with a `StreamError`. Nothing is read from the source after its terminal
 * event; the source's `return` is awaited when the guarded stream ends or is left.
 *
 * Per event it costs one reaction to the source's `next()` promise: it is written as an
 * iterator rather than an async generator, whose `await` and `yield` take several more
 * promises per event, on every token of every stream. Call `next()` once at a time, as
 * `for await` does.
 */
export function guardStream(source: AsyncIterable<ChatStreamEvent>, options: GuardStreamOptions): AsyncGenerator<ChatStreamEvent> {
  return new GuardedStream(source, options.provider);
}

type Result = IteratorResult<ChatStreamEvent, undefined>;

const DONE: Result = { value: undefined, done: true };

/** The callbacks of a `NEXT_THEN` call while what it waits for is under way. */
type Chained = NextThenCallbacks<ChatStreamEvent>;

class GuardedStream implements AsyncGenerator<ChatStreamEvent, undefined> {
  readonly #iterable: AsyncIterable<ChatStreamEvent>;
  /** The source's iterator, asked for on the first `next()` (as a generator would): a source whose iterator starts work starts when read. */
  #source: AsyncIterator<ChatStreamEvent> | undefined;
  readonly #provider: string;
  // Made at the first tool call: most streams have none, and a stream stays open for seconds.
  #open: Set<string> | undefined;
  #done: Set<string> | undefined;
  #started = false;
  /** Events to hand out before the source is read again (a call's added start and delta). */
  readonly #queued: ChatStreamEvent[] = [];
  /** Set once the terminal event is decided: the source is not read again. */
  #finished = false;
  #closed: Promise<Result> | undefined;
  readonly #onNext = (next: IteratorResult<ChatStreamEvent>): Result | Promise<Result> => this.#check(next);
  readonly #onFailure = (error: unknown): Result | Promise<Result> => this.#failed(error);

  constructor(source: AsyncIterable<ChatStreamEvent>, provider: string) {
    this.#iterable = source;
    this.#provider = provider;
  }

  next(): Promise<Result> {
    const queued = this.#queued.shift();
    if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
    if (this.#finished) return this.#close();
    let pending: Promise<IteratorResult<ChatStreamEvent>>;
    try {
      pending = (this.#source ??= this.#iterable[Symbol.asyncIterator]()).next();
    } catch (error) {
      return Promise.resolve(this.#failed(error));
    }
    return pending.then(this.#onNext, this.#onFailure);
  }

  /**
   * `next().then(onResult, onFailure)` chained to the source's own (see `NEXT_THEN`): no
   * promise of its own per event. The callbacks wait in a field (no closures per call); a
   * second call while one waits takes the plain way.
   */
  [NEXT_THEN]<R>(onResult: (result: Result) => R | PromiseLike<R>, onFailure: (error: unknown) => R | PromiseLike<R>): Promise<R> {
    if (this.#queued.length > 0 || this.#finished || this.#chained !== undefined) return this.next().then(onResult, onFailure);
    let source: AsyncIterator<ChatStreamEvent>;
    try {
      source = this.#source ??= this.#iterable[Symbol.asyncIterator]();
    } catch (error) {
      return Promise.resolve(this.#failed(error)).then(onResult, onFailure);
    }
    this.#chained = { onResult, onFailure };
    try {
      return nextThen(source, this.#chainedNext, this.#chainedFailure) as Promise<R>;
    } catch (error) {
      this.#chained = undefined;
      return Promise.resolve(this.#failed(error)).then(onResult, onFailure);
    }
  }

  /** The callbacks of the waiting `NEXT_THEN`. */
  #chained: Chained | undefined;

  /** What `.then(onResult, onFailure)` on `#check`'s promise would do, without that promise. */
  readonly #chainedNext = (next: IteratorResult<ChatStreamEvent>): unknown => handOn(this.#takeChained(), this, this.#check, next);

  readonly #chainedFailure = (error: unknown): unknown => handOn(this.#takeChained(), this, this.#failed, error);

  /** The waiting `NEXT_THEN`'s callbacks, handed over once. */
  #takeChained(): Chained {
    const chained = this.#chained as Chained;
    this.#chained = undefined;
    return chained;
  }

  return(): Promise<Result> {
    return this.#close();
  }

  throw(error: unknown): Promise<Result> {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the caller's value, passed on as it is (as a generator rethrows it)
    return this.#close().then(() => Promise.reject(error));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#close();
  }

  /** Ends the stream once: nothing is handed out or read after, and the source may clean up. */
  #close(): Promise<Result> {
    this.#finished = true;
    this.#queued.length = 0;
    this.#closed ??= (async (): Promise<Result> => {
      await this.#source?.return?.();
      return DONE;
    })();
    return this.#closed;
  }

  #failed(error: unknown): Result | Promise<Result> {
    // Before any event the call failed to start: the caller's `next()` rejects (the source cleaned up first).
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the source's failure, passed on as it is
    if (!this.#started) return this.#close().then(() => Promise.reject(error));
    return this.#last({ type: 'error', error: error instanceof Error ? error : new StreamError({ provider: this.#provider, message: String(error) }) });
  }

  #breach(message: string): Result {
    return this.#last({
      type: 'error',
      error: new StreamError({ provider: this.#provider, message: `The ${this.#provider} stream broke the stream contract: ${message}` }),
    });
  }

  #last(event: ChatStreamEvent): Result {
    this.#finished = true;
    return { value: event, done: false };
  }

  #check(next: IteratorResult<ChatStreamEvent>): Result | Promise<Result> {
    if (this.#closed !== undefined) return this.#closed;
    if (next.done === true) return this.#breach('it ended without a finish event, so the answer may be incomplete. Send the request again.');
    const event = next.value;
    this.#started = true;
    switch (event.type) {
      case 'tool-call-start': {
        const open = (this.#open ??= new Set());
        if (open.has(event.id) || this.#done?.has(event.id) === true) return this.#breach(`tool call "${event.id}" was started twice.`);
        open.add(event.id);
        return { value: event, done: false };
      }
      case 'tool-call-delta':
        if (this.#open?.has(event.id) !== true) return this.#breach(`arguments arrived for tool call "${event.id}", which is not open.`);
        return { value: event, done: false };
      case 'tool-call': {
        const id = event.toolCall.id;
        const done = (this.#done ??= new Set());
        if (done.has(id)) return this.#breach(`tool call "${id}" was finished twice.`);
        const opened = this.#open?.delete(id) === true;
        done.add(id);
        if (opened) return { value: event, done: false };
        this.#queued.push({ type: 'tool-call-delta', id, argumentsDelta: event.toolCall.invalid?.rawArguments ?? JSON.stringify(event.toolCall.arguments) }, event);
        return { value: { type: 'tool-call-start', id, name: event.toolCall.name, ...(event.toolCall.providerExecuted === true ? { providerExecuted: true } : {}) }, done: false };
      }
      case 'finish':
      case 'error':
        return this.#last(event);
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-result':
      case 'warning':
        return { value: event, done: false };
      default: {
        const unexpected: never = event;
        return this.#breach(`unknown event ${JSON.stringify(unexpected)}.`);
      }
    }
  }
}
