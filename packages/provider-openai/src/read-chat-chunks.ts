import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { takeBodyReader } from '@toolwire/core/provider';
import { createSseEventParser } from './sse-event-parser.ts';
import type { SseEvent } from './sse-event-parser.ts';

function toChunk(sse: SseEvent, headers: Headers): ChatCompletionChunk {
  let data: unknown;
  try {
    data = JSON.parse(sse.data);
  } catch {
    throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
  }
  // Errors inside a stream, as the SDK's own stream reports them: an `error` event, or a payload with a truthy `error`.
  const error = (data as { error?: unknown } | null)?.error;
  if (sse.event === 'error') throw new APIError(undefined, (error ?? data) as object | undefined, undefined, headers);
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
export interface ChatChunkReader {
  /** The chunks of the next read of the body (never empty); `undefined` at `[DONE]` or the end of the body. */
  read(): Promise<ChatCompletionChunk[] | undefined>;
  /** Stops reading before the end and frees the socket (nothing happens after the end). */
  cancel(): void;
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
export function createChatChunkReader(response: Response): ChatChunkReader {
  return new ChunkReader(response);
}

// A class, not a closure per step: one is held by every open stream for its whole length.
class ChunkReader implements ChatChunkReader {
  readonly #source: ByteSource;
  readonly #headers: Headers;
  readonly #decoder = new TextDecoder();
  readonly #parser = createSseEventParser();
  #finished = false;
  /** A bad event after good ones in the same read: thrown by the next read. */
  #failure: { error: Error } | undefined;
  // A read that completed no event (half a line, a comment) reads again.
  readonly #onParts = (parts: readonly Uint8Array[] | undefined): ChatCompletionChunk[] | undefined | Promise<ChatCompletionChunk[] | undefined> => {
    let chunks: ChatCompletionChunk[] | undefined;
    try {
      chunks = this.#parse(parts);
    } catch (error) {
      return this.#fail(error);
    }
    return chunks !== undefined && chunks.length > 0 ? chunks : this.read();
  };
  readonly #onFailure = (error: unknown): never => this.#fail(error);

  constructor(response: Response) {
    this.#source = byteSource(response);
    this.#headers = response.headers;
  }

  // Not an async function: one promise per read, the source's own and its reaction.
  read(): Promise<ChatCompletionChunk[] | undefined> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error);
    if (this.#finished) return Promise.resolve(undefined);
    return this.#source.read().then(this.#onParts, this.#onFailure);
  }

  cancel(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#source.cancel();
  }

  #fail(error: unknown): never {
    this.cancel();
    throw error;
  }

  #parse(parts: readonly Uint8Array[] | undefined): ChatCompletionChunk[] | undefined {
    const parser = this.#parser;
    const decoder = this.#decoder;
    let events: SseEvent[];
    if (parts === undefined) {
      // The body ended: nothing to cancel.
      this.#finished = true;
      events = [...parser.push(decoder.decode()), ...parser.end()];
    } else if (parts.length === 1) events = parser.push(decoder.decode(parts[0], { stream: true }));
    else {
      events = [];
      for (const part of parts) events.push(...parser.push(decoder.decode(part, { stream: true })));
    }
    const chunks: ChatCompletionChunk[] = [];
    for (const sse of events) {
      if (sse.data === '[DONE]') {
        // Whatever follows [DONE] is not read: the socket goes.
        this.cancel();
        break;
      }
      try {
        chunks.push(toChunk(sse, this.#headers));
      } catch (error) {
        if (chunks.length === 0) throw error;
        // The chunks before the bad event still go out (a read may hold the whole rest of
        // the body); the failure comes with the next read.
        this.#failure = { error: error instanceof Error ? error : new Error(String(error)) };
        this.cancel();
        break;
      }
    }
    return chunks;
  }
}
