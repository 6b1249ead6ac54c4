import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { Utf8ChunkDecoder, takeBodyReader } from '@toolwire/core/provider';
import { learnChatTextChunkTemplate, matchChatTextChunk } from './chat-text-chunk-template.ts';
import type { ChatTextChunkTemplate } from './chat-text-chunk-template.ts';
import { createSseEventParser } from './sse-event-parser.ts';

function toChunk(event: string | undefined, payload: string, headers: Headers): ChatCompletionChunk {
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
  }
  // `data: null` parses, and every reader of a chunk would then fail on `chunk.id` with a TypeError that says nothing.
  if (data === null || typeof data !== 'object') throw new SyntaxError(`Error reading response: a server-sent event holds ${JSON.stringify(data)}, not a JSON object.`);
  // Errors inside a stream, as the SDK's own stream reports them: an `error` event, or a payload with a truthy `error`.
  const error = (data as { error?: unknown }).error;
  if (event === 'error') throw new APIError(undefined, error ?? data, undefined, headers);
  if (error !== undefined && error !== null && error !== false && error !== '' && error !== 0) throw new APIError(undefined, error, undefined, headers);
  return data as ChatCompletionChunk;
}

/** The body's bytes, read by whichever means the response offers. */
interface ByteSource {
  /** Every chunk since the last read; `undefined` at the end. */
  read(): Promise<readonly Uint8Array[] | undefined>;
  cancel(): void;
}

/** The response's `BodyReader` when its `fetch` attached one (no web stream in between), else its web body. */
function byteSource(response: Response): ByteSource {
  const attached = takeBodyReader(response);
  if (attached !== undefined) return attached;
  const body = response.body;
  if (body === null) throw new SyntaxError('Error reading response: the streamed response has no body.');
  const reader = body.getReader();
  return {
    read: () => reader.read().then((read) => (read.done ? undefined : [read.value])),
    cancel: () => {
      reader.cancel().catch(() => undefined);
    },
  };
}

/** Reads the chunks of a streamed Chat Completions response; see `createChatChunkReader`. */
export interface ChatChunkReader<C = ChatCompletionChunk> {
  /** The chunks of the next read of the body (never empty); `undefined` at `[DONE]` or the end of the body. */
  read(): Promise<C[] | undefined>;
  /**
   * `read().then(onChunks, onFailure)` without the promise in between: the chunks go to
   * `onChunks` in the reaction to the body's own read (one promise and one microtask turn
   * less per read, on every token of every stream).
   */
  readThen<T>(onChunks: (chunks: C[] | undefined) => T | Promise<T>, onFailure: (error: unknown) => T | Promise<T>): Promise<T>;
  /** Stops reading before the end and frees the socket (nothing happens after the end). */
  cancel(): void;
  /**
   * The answer is complete (its finish chunk came): what may still follow (the usage chunk,
   * `[DONE]`) is waited for at most `ms` more; then the body counts as ended and the socket
   * goes. What arrived before that and sits unread (a consumer that reads on late) is still
   * read. For a server that sends its finish and then keeps the connection open. Later calls
   * keep the first deadline.
   */
  endWithin(ms: number): void;
}

/**
 * The chunks of a streamed Chat Completions response, as they arrive (all the chunks of
 * one read together): SSE parsed in one linear pass, each payload parsed once, an error
 * payload thrown as the SDK's `APIError` (what the SDK's stream throws), `[DONE]` ends it.
 * One await per read of the body, where the SDK's stream takes several generators and
 * promises per chunk, and no generator of its own; when the `fetch` attached a `BodyReader`
 * (the gateway's does), the bytes come without a web stream, everything that arrived since
 * the last read at once. A failed read (or an error payload) cancels the body; so does
 * `cancel`, which the caller owes when it stops before `undefined`.
 */
export function createChatChunkReader(response: Response): ChatChunkReader;
/**
 * With `plainText`, a plain text chunk (one choice whose delta is `content` only, no
 * finish, no usage) that has the JSON text of an earlier one of the stream but for its
 * text comes as that text, a string, without its payload being parsed (see
 * `ChatTextChunkTemplate`); every other chunk as before.
 */
export function createChatChunkReader(response: Response, options: { plainText: true }): ChatChunkReader<ChatCompletionChunk | string>;
export function createChatChunkReader(response: Response, options?: { plainText: true }): ChatChunkReader<ChatCompletionChunk | string> {
  return new ChunkReader(response, options?.plainText === true);
}

type Chunk = ChatCompletionChunk | string;

// A class, not a closure per step: one is held by every open stream for its whole length.
class ChunkReader implements ChatChunkReader<Chunk> {
  readonly #source: ByteSource;
  readonly #headers: Headers;
  readonly #plainText: boolean;
  #template: ChatTextChunkTemplate | undefined;
  /** Whether the template read a chunk since it was learned: then a plain chunk it misses teaches a new one. */
  #templateUsed = false;
  /** No template is learned any more: one was learned and missed the very next plain chunk (a field that changes per chunk). */
  #learning = true;
  // No native converter per stream (a `TextDecoder` keeps one for the stream's life).
  readonly #decoder = new Utf8ChunkDecoder();
  readonly #parser = createSseEventParser();
  #finished = false;
  /** Set by `endWithin`: when reading stops (`Date.now()` time). */
  #deadline: number | undefined;
  /** A bad event after good ones in the same read: thrown by the next read. */
  #failure: { error: Error } | undefined;
  // The chunks of the read being parsed: the first alone, an array once there are two (the
  // usual read has one: no array grown per read); `stopped` after [DONE] or a bad event.
  #first: Chunk | undefined;
  #more: Chunk[] | undefined;
  #stopped = false;
  #thrown: { error: unknown } | undefined;
  /**
   * The callbacks of a `readThen` while its read is under way (fields, not closures per
   * read: a stream waits for its next read between any two tokens). Only that read's
   * reactions (`#onChainedParts`, `#onChainedFailure`) take them, so a plain `read()` under
   * way at the same time keeps its own result.
   */
  #chainedChunks: ((chunks: Chunk[] | undefined) => unknown) | undefined;
  #chainedFailure: ((error: unknown) => unknown) | undefined;
  readonly #onEvent = (event: string | undefined, data: string): void => this.#event(event, data);
  // A read that completed no event (half a line, a comment) reads again.
  readonly #onParts = (parts: readonly Uint8Array[] | undefined): Chunk[] | undefined | Promise<Chunk[] | undefined> => {
    let chunks: Chunk[] | undefined;
    try {
      chunks = this.#parse(parts);
    } catch (error) {
      return this.#fail(error);
    }
    return chunks !== undefined && chunks.length > 0 ? chunks : this.read();
  };
  readonly #onFailure = (error: unknown): never => this.#fail(error);
  readonly #onChainedParts = (parts: readonly Uint8Array[] | undefined): unknown => {
    const onChunks = this.#chainedChunks as (chunks: Chunk[] | undefined) => unknown;
    const onFailure = this.#chainedFailure as (error: unknown) => unknown;
    this.#chainedChunks = undefined;
    this.#chainedFailure = undefined;
    let chunks: Chunk[] | undefined;
    try {
      chunks = this.#parse(parts);
    } catch (error) {
      this.cancel();
      return onFailure(error);
    }
    // A read that completed no event (half a line, a comment) reads again.
    return chunks !== undefined && chunks.length === 0 ? this.readThen(onChunks, onFailure) : onChunks(chunks);
  };
  readonly #onChainedFailure = (error: unknown): unknown => {
    const onFailure = this.#chainedFailure as (error: unknown) => unknown;
    this.#chainedChunks = undefined;
    this.#chainedFailure = undefined;
    this.cancel();
    return onFailure(error);
  };

  constructor(response: Response, plainText: boolean) {
    this.#source = byteSource(response);
    this.#headers = response.headers;
    this.#plainText = plainText;
  }

  // Not an async function: one promise per read, the source's own and its reaction.
  read(): Promise<Chunk[] | undefined> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error);
    if (this.#finished) return Promise.resolve(undefined);
    return this.#readSource().then(this.#onParts, this.#onFailure);
  }

  readThen<T>(onChunks: (chunks: Chunk[] | undefined) => T | Promise<T>, onFailure: (error: unknown) => T | Promise<T>): Promise<T> {
    if (this.#failure !== undefined || this.#finished || this.#chainedChunks !== undefined) return this.read().then(onChunks, onFailure);
    const read = this.#readSource();
    this.#chainedChunks = onChunks;
    this.#chainedFailure = onFailure;
    return read.then(this.#onChainedParts, this.#onChainedFailure) as Promise<T>;
  }

  cancel(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#source.cancel();
  }

  endWithin(ms: number): void {
    this.#deadline ??= Date.now() + ms;
  }

  /**
   * The source's next read; after `endWithin`, the end of the body once the deadline passes
   * (past it, only what the source already holds is still read).
   */
  #readSource(): Promise<readonly Uint8Array[] | undefined> {
    const deadline = this.#deadline;
    if (deadline === undefined) return this.#source.read();
    const source = this.#source;
    const left = deadline - Date.now();
    if (left <= 0) return this.#readBuffered();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // The socket goes; the read under way then settles unheard.
        source.cancel();
        resolve(undefined);
      }, left);
      source.read().then(
        (parts) => {
          clearTimeout(timer);
          resolve(parts);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /**
   * Past the deadline: what the source already holds (the usage chunk and `[DONE]` that came
   * in time while the consumer was busy, in `NodeBody`'s buffer or the web stream's queue: such
   * a read settles in the microtasks, before `setImmediate`), else the end of the body and the
   * socket goes. The grace bounds the upstream's silence, not how slowly the consumer reads.
   * A failure there ends the body too: the answer is complete.
   */
  #readBuffered(): Promise<readonly Uint8Array[] | undefined> {
    const source = this.#source;
    return new Promise((resolve) => {
      let settled = false;
      const immediate = setImmediate(() => {
        settled = true;
        source.cancel();
        resolve(undefined);
      });
      source.read().then(
        (parts) => {
          if (settled) return;
          settled = true;
          clearImmediate(immediate);
          resolve(parts);
        },
        () => {
          if (settled) return;
          settled = true;
          clearImmediate(immediate);
          source.cancel();
          resolve(undefined);
        },
      );
    });
  }

  #fail(error: unknown): never {
    this.cancel();
    throw error;
  }

  #event(event: string | undefined, data: string): void {
    if (this.#stopped) return;
    if (data === '[DONE]') {
      // Whatever follows [DONE] is not read: the socket goes.
      this.#stopped = true;
      this.cancel();
      return;
    }
    const template = this.#template;
    let chunk: Chunk | undefined = template !== undefined && event === undefined ? matchChatTextChunk(template, data) : undefined;
    if (chunk !== undefined) this.#templateUsed = true;
    else {
      try {
        const parsed = toChunk(event, data, this.#headers);
        if (this.#plainText && this.#learning && event === undefined) this.#learn(data, parsed);
        chunk = parsed;
      } catch (error) {
        this.#stopped = true;
        if (this.#first === undefined) {
          this.#thrown = { error };
          return;
        }
        // The chunks before the bad event still go out (a read may hold the whole rest of
        // the body); the failure comes with the next read.
        this.#failure = { error: error instanceof Error ? error : new Error(String(error)) };
        this.cancel();
        return;
      }
    }
    if (this.#first === undefined) this.#first = chunk;
    else if (this.#more === undefined) this.#more = [this.#first, chunk];
    else this.#more.push(chunk);
  }

  /**
   * Learns the template of a parsed chunk the current one (if any) missed. A server that
   * stamps each chunk's `created` changes its chunks' JSON every second: a template that read
   * chunks is replaced by the next one. One that missed the very next plain text chunk means
   * a field changes on every chunk (OpenAI's `obfuscation`): learning stops, or every chunk
   * would be parsed twice.
   */
  #learn(payload: string, parsed: ChatCompletionChunk): void {
    const current = this.#template;
    // Missed for its text (an escape), not for its shape: the template still holds.
    if (current !== undefined && payload.startsWith(current.prefix) && payload.endsWith(current.suffix)) return;
    const next = learnChatTextChunkTemplate(payload, parsed);
    if (next === undefined) return;
    if (current !== undefined && !this.#templateUsed) {
      this.#learning = false;
      this.#template = undefined;
      return;
    }
    this.#template = next;
    this.#templateUsed = false;
  }

  #parse(parts: readonly Uint8Array[] | undefined): Chunk[] | undefined {
    this.#first = undefined;
    this.#more = undefined;
    this.#stopped = false;
    const parser = this.#parser;
    const decoder = this.#decoder;
    const onEvent = this.#onEvent;
    if (parts === undefined) {
      // The body ended: nothing to cancel.
      this.#finished = true;
      parser.push(decoder.end(), onEvent);
      parser.end(onEvent);
    } else for (const part of parts) parser.push(decoder.decode(part), onEvent);
    const first = this.#first;
    const chunks = this.#more ?? (first === undefined ? NO_CHUNKS : [first]);
    this.#first = undefined;
    this.#more = undefined;
    const thrown = this.#thrown;
    if (thrown !== undefined) {
      this.#thrown = undefined;
      throw thrown.error;
    }
    return chunks;
  }
}

// A read that completed no chunk (half a line, a comment): read again. Never handed out.
const NO_CHUNKS: Chunk[] = [];

