import type { ChatStreamEvent } from '@toolwire/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { NEXT_THEN, handOn } from '@toolwire/core/provider';
import type { NextThenCallbacks } from '@toolwire/core/provider';
import { abortReason } from './map-openai-error.ts';
import { DEFAULT_END_GRACE_MS } from './openai-client-context.ts';
import type { ChatStreamMapper } from './openai-chat-stream.ts';
import { createChatChunkReader } from './read-chat-chunks.ts';
import type { ChatChunkReader } from './read-chat-chunks.ts';

/** What `open` of `createChatEventStream` resolves with. */
export interface OpenedChatStream {
  response: Response;
  /** Events that go out before the first chunk's (the request's warnings). */
  before: readonly ChatStreamEvent[];
  mapper: ChatStreamMapper;
  /** Applied to every event the mapper gives (restores strict tools' call names and arguments). */
  restore: (event: ChatStreamEvent) => ChatStreamEvent;
}

/** Options of `createChatEventStream`. */
export interface ChatEventStreamOptions {
  /** Makes the call; called on the first `next()`, whose promise rejects with its failure. */
  open: () => Promise<OpenedChatStream>;
  /** The error of the `error` event for a failure while reading (a reset, garbage, an error payload). */
  mapError: (error: unknown) => Error;
  /** The request's signal: a body that ends quietly after an abort ends with the abort's error. */
  signal?: AbortSignal | undefined;
  /** How long the body is read after the finish chunk before it counts as ended (see `ChatChunkReader.endWithin`; default 2000 ms). */
  endGraceMs?: number;
}

type Result = IteratorResult<ChatStreamEvent, undefined>;

/** The callbacks of a `NEXT_THEN` call while what it waits for is under way. */
type Chained = NextThenCallbacks<ChatStreamEvent>;

const DONE: Result = { value: undefined, done: true };

/**
 * The events of one streamed Chat Completions call: the call is made on the first
 * `next()` (its failure rejects it), then each read of the body is parsed, mapped and
 * handed out event by event; a failure while reading becomes one `error` event, the end of
 * the body the mapper's closing events. Leaving early (`return`) frees the socket.
 *
 * An iterator rather than an async generator: a generator's `yield` costs several promises
 * and a result object per event, on every token of every stream; here a read of the body
 * costs its own promise and one reaction, and each event one resolved promise. Call
 * `next()` once at a time, as `for await` and `guardStream` do.
 */
export function createChatEventStream(options: ChatEventStreamOptions): AsyncGenerator<ChatStreamEvent, undefined> {
  return new ChatEventStream(options);
}

class ChatEventStream implements AsyncGenerator<ChatStreamEvent, undefined> {
  /** Makes the call: dropped once called (its closure is needed at the start only). */
  #open: ChatEventStreamOptions['open'] | undefined;
  readonly #mapError: ChatEventStreamOptions['mapError'];
  readonly #signal: AbortSignal | undefined;
  readonly #endGraceMs: number;
  #state: 'idle' | 'opening' | 'reading' | 'ended' = 'idle';
  /** Set by `return`: nothing more is handed out. */
  #left = false;
  readonly #queue: ChatStreamEvent[] = [];
  #reader: ChatChunkReader<ChatCompletionChunk | string> | undefined;
  /**
   * What the reads need of the opened call (fields, not an object of their own): not its
   * `Response`, which the body reader no longer needs once it has the body, and which would
   * otherwise stay for the stream's length.
   */
  #mapper: ChatStreamMapper | undefined;
  #restore: OpenedChatStream['restore'] | undefined;
  readonly #onChunks = (chunks: ChatCompletionChunks): Result | Promise<Result> => this.#took(chunks);
  readonly #onFailure = (error: unknown): Result | Promise<Result> => this.#failed(error);

  constructor(options: ChatEventStreamOptions) {
    this.#open = options.open;
    this.#mapError = options.mapError;
    this.#signal = options.signal;
    this.#endGraceMs = options.endGraceMs ?? DEFAULT_END_GRACE_MS;
  }

  next(): Promise<Result> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
    switch (this.#state) {
      case 'idle': {
        this.#state = 'opening';
        const open = this.#open as ChatEventStreamOptions['open'];
        this.#open = undefined;
        return open().then(
          (opened) => this.#start(opened),
          (error: unknown) => {
            this.#state = 'ended';
            throw error;
          },
        );
      }
      case 'reading':
        return (this.#reader as ChatChunkReader<ChatCompletionChunk | string>).readThen(this.#onChunks, this.#onFailure);
      case 'opening':
      case 'ended':
        return Promise.resolve(DONE);
      default: {
        const unexpected: never = this.#state;
        throw new Error(`unknown state ${String(unexpected)}`);
      }
    }
  }

  /**
   * `next().then(onResult, onFailure)` chained to the body's read (see `NEXT_THEN`): a
   * read's event reaches the caller in the read's own turn. The callbacks wait in fields
   * (no closures per call); a second call while one waits takes the plain way.
   */
  [NEXT_THEN]<R>(onResult: (result: Result) => R | PromiseLike<R>, onFailure: (error: unknown) => R | PromiseLike<R>): Promise<R> {
    if (this.#state !== 'reading' || this.#queue.length > 0 || this.#chained !== undefined) return this.next().then(onResult, onFailure);
    this.#chained = { onResult, onFailure };
    return (this.#reader as ChatChunkReader<ChatCompletionChunk | string>).readThen(this.#chainedChunks, this.#chainedFailure) as Promise<R>;
  }

  /** The callbacks of the waiting `NEXT_THEN`. */
  #chained: Chained | undefined;

  /** What `.then(onResult, onFailure)` on `#took`'s promise would do, without that promise. */
  readonly #chainedChunks = (chunks: ChatCompletionChunks): unknown => handOn(this.#takeChained(), this, this.#took, chunks);

  readonly #chainedFailure = (error: unknown): unknown => handOn(this.#takeChained(), this, this.#failed, error);

  /** The waiting `NEXT_THEN`'s callbacks, handed over once. */
  #takeChained(): Chained {
    const chained = this.#chained as Chained;
    this.#chained = undefined;
    return chained;
  }

  return(): Promise<Result> {
    this.#left = true;
    this.#state = 'ended';
    this.#queue.length = 0;
    this.#reader?.cancel();
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
   * `next()` for the reactions below: an event already queued is handed back as it is, not
   * in a promise (a reaction that returns a promise costs two more microtask turns, per token).
   */
  #after(): Result | Promise<Result> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return { value: queued, done: false };
    return this.next();
  }

  #start(opened: OpenedChatStream): Result | Promise<Result> {
    let reader: ChatChunkReader<ChatCompletionChunk | string>;
    try {
      reader = createChatChunkReader(opened.response, { plainText: true });
    } catch (error) {
      // No body to read (a 204, a proxy answering without one): the warnings, then the mapped error.
      if (this.#left) return DONE;
      this.#mapper = opened.mapper;
      this.#restore = opened.restore;
      this.#queue.push(...opened.before);
      return this.#failed(error);
    }
    if (this.#left) {
      // Left while the call was being made: the body is not read.
      reader.cancel();
      return DONE;
    }
    this.#reader = reader;
    this.#mapper = opened.mapper;
    this.#restore = opened.restore;
    this.#state = 'reading';
    this.#queue.push(...opened.before);
    return this.#after();
  }

  #took(chunks: ChatCompletionChunks): Result | Promise<Result> {
    if (this.#left) return DONE;
    const mapper = this.#mapper as ChatStreamMapper;
    const restore = this.#restore as OpenedChatStream['restore'];
    const signal = this.#signal;
    if (chunks === undefined) {
      this.#state = 'ended';
      // A body cut by an abort may end quietly; say why it stopped.
      if (signal?.aborted === true) this.#queue.push({ type: 'error', error: abortReason(signal) });
      else for (const event of mapper.end()) this.#queue.push(restore(event));
      return this.#after();
    }
    try {
      const only = chunks.length === 1 && this.#queue.length === 0 ? chunks[0] : undefined;
      if (typeof only === 'string') {
        // The usual read: one plain text chunk, nothing queued: its event goes out as it is
        // (none while the mapper holds text back: the chunk is taken all the same).
        const event = mapper.pushText(only);
        if (event !== undefined) return { value: restore(event), done: false };
      } else {
        for (const chunk of chunks) {
          // A plain text chunk read without parsing it (see `createChatChunkReader`): at most one text delta.
          if (typeof chunk === 'string') {
            const event = mapper.pushText(chunk);
            if (event !== undefined) this.#queue.push(restore(event));
          } else for (const event of mapper.push(chunk)) this.#queue.push(restore(event));
        }
      }
    } catch (error) {
      return this.#failed(error);
    }
    // Complete: the usage chunk and `[DONE]` get a short while, not the fetch's idle timeout.
    if (mapper.finished) this.#reader?.endWithin(this.#endGraceMs);
    return this.#after();
  }

  #failed(error: unknown): Result | Promise<Result> {
    if (this.#left) return DONE;
    this.#state = 'ended';
    this.#reader?.cancel();
    // The events mapped before the failure still go out, then the error.
    this.#queue.push({ type: 'error', error: this.#mapError(error) });
    return this.#after();
  }
}

type ChatCompletionChunks = (ChatCompletionChunk | string)[] | undefined;
