import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Writes `data: …\n\n` frames to a response, waiting when the socket's buffer is full. */
export interface SseWriter {
  /**
   * Queues frames: whether more may be written (false once closed), at once while the
   * socket keeps up, or as a promise when its buffer is full, settled once it drained.
   * Streams write per token: no promise (and no await) on that path.
   */
  write(frames: readonly unknown[]): boolean | Promise<boolean>;
  /** `write` for one frame already in SSE form (`data: …\n\n`). */
  writeText(text: string): boolean | Promise<boolean>;
  /** Writes `data: [DONE]` and ends the response. */
  done(): void;
  /** Ends the response without `[DONE]` (after an error frame). */
  end(): void;
}

/**
 * Waits for the response's buffer to drain, or for the client to go away (false then, as
 * after an 'error'). Its listeners go when it settles: a long stream to a slow client waits
 * many times, and must not collect a listener per wait.
 */
function drained(res: ServerResponse, writable: ServerResponse | Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (ok: boolean): void => {
      writable.off('drain', onDrain);
      res.off('close', onClose);
      res.off('error', onClose);
      resolve(ok && !res.destroyed);
    };
    const onDrain = (): void => settle(true);
    const onClose = (): void => settle(false);
    writable.on('drain', onDrain);
    res.on('close', onClose);
    res.on('error', onClose);
  });
}

/** Frames one JSON payload as an SSE data event. */
export function sseFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

// Past this many queued characters the frames leave at once rather than at the end of the turn.
const FLUSH_AT = 16_384;

// Writers with frames waiting for the end of this turn: one `setImmediate` flushes them all
// (one per turn for the process, not one per stream per turn). The writers themselves wait
// here, not a bound function each (one more closure per open stream).
let due: ResponseSseWriter[] = [];
const flushDue = (): void => {
  const writers = due;
  due = [];
  // A flush never throws (see `flush`): one failing response must not cost the others their frames.
  for (const writer of writers) writer.flushDue();
};

/** Options of `createSseWriter`. */
export interface SseWriterOptions {
  /** Told about a socket error on the response (a reset client). */
  onError?: (error: Error) => void;
  /** Frames one payload (default `sseFrame`, `data:` only); the Responses route adds `event:` lines. */
  frame?: (payload: unknown) => string;
}

/**
 * Wraps a raw response whose `text/event-stream` headers were already written. Frames
 * produced in the same turn of the event loop (everything one upstream read yields) are
 * joined and leave in one socket write, after that turn's I/O callbacks (one `setImmediate`
 * for every writer with frames waiting);
 * the frames still queued when the stream ends leave with the end of the response
 * (`[DONE]` and the final chunk of the body). Each socket write costs far more than
 * joining strings.
 */
export function createSseWriter(res: ServerResponse, options: SseWriterOptions = {}): SseWriter {
  return new ResponseSseWriter(res, options);
}

// A class, not a closure per method: one is held by every open stream for its whole length.
class ResponseSseWriter implements SseWriter {
  readonly #res: ServerResponse;
  readonly #frameOf: (payload: unknown) => string;
  #pending = '';
  #scheduled = false;
  // Once the first write sent the headers, a chunked response's frames go straight to its
  // socket, each batch framed as one HTTP chunk by hand: `res.write` costs a cork, a tick
  // and a four-buffer `writev` per call (three writes: size line, data, CRLF), on every
  // token of every stream; the bytes on the wire are the same.
  #socket: Socket | undefined;

  constructor(res: ServerResponse, options: SseWriterOptions) {
    this.#res = res;
    this.#frameOf = options.frame ?? sseFrame;
    // A socket error on the response (a reset client) must reach a listener, or Node throws
    // it as an uncaught exception; the writer sees the response destroyed and stops.
    // (The caller's own function: a wrapper would be one more closure per open stream.)
    res.on('error', options.onError ?? ignore);
  }

  write(frames: readonly unknown[]): boolean | Promise<boolean> {
    const res = this.#res;
    if (frames.length === 0) return !res.destroyed;
    if (res.destroyed || res.writableEnded) return false;
    for (const frame of frames) this.#pending += this.#frameOf(frame);
    return this.#queued();
  }

  writeText(text: string): boolean | Promise<boolean> {
    const res = this.#res;
    if (res.destroyed || res.writableEnded) return false;
    this.#pending += text;
    return this.#queued();
  }

  done(): void {
    this.#finish('data: [DONE]\n\n');
  }

  end(): void {
    this.#finish('');
  }

  /** Sends what waited for the end of the turn (called by `flushDue`, for every writer in `due`). */
  flushDue(): void {
    this.#flush();
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    const res = this.#res;
    if (res.writableEnded || res.destroyed) return;
    try {
      const socket = this.#socket;
      if (socket !== undefined && res.socket === socket) socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
      else {
        res.write(text);
        this.#socket = res.chunkedEncoding && res.socket !== null ? res.socket : undefined;
      }
    } catch (error) {
      // Run for every stream in one `setImmediate`: this response fails (its 'error' tells the stream), not the process.
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #finish(tail: string): void {
    const text = this.#pending + tail;
    this.#pending = '';
    const res = this.#res;
    if (res.writableEnded) return;
    if (text === '') res.end();
    else res.end(text);
  }

  #queued(): boolean | Promise<boolean> {
    if (this.#pending.length >= FLUSH_AT) this.#flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      if (due.push(this) === 1) setImmediate(flushDue);
    }
    const res = this.#res;
    const socket = this.#socket;
    if (socket !== undefined && res.socket === socket) return socket.writableNeedDrain ? drained(res, socket) : true;
    if (!res.writableNeedDrain) return true;
    return drained(res, res);
  }
}

function ignore(): void {
  // No `onError`: the writer notices the destroyed response on its own.
}
