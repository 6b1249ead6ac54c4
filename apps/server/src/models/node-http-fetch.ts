import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { BodyReader, FetchSignalFetch } from '@toolwire/core/provider';
import { UpstreamTimeoutError } from '@toolwire/core';
import { DEFAULT_MAX_MESSAGE_BYTES, fetchSignalOf, markFetchSignal } from '@toolwire/core/provider';
import type { UpstreamMessageLimit } from '@toolwire/core/provider';
import { flattenHeaderBlock } from '../flatten-header-block.ts';
import { decodeUpstreamBody } from './decode-upstream-body.ts';
import { NodeHttpResponse } from './node-http-response.ts';

/** Past this many bytes read ahead of the `BodyReader`, the socket is paused until the next read. */
const READ_AHEAD_BYTES = 64 * 1024;

/**
 * One upstream response body, read once: by a `BodyReader` (`claim`, what the providers
 * that read streams themselves take: every chunk since the last read, no web stream in
 * between), or as the web stream `web` (`Response.body`, for the SDK's own reads), whichever
 * asks first; the other then fails. Nothing flows before one asks (the socket stays paused).
 * A response that closes before its end fails the read; a socket event after the body
 * ended, failed or was cancelled is ignored, never thrown from an emitter listener.
 *
 * Exported for its tests only.
 */
export function createNodeBody(res: IncomingMessage, limit?: UpstreamMessageLimit): { readonly web: ReadableStream<Uint8Array>; claim: () => BodyReader | undefined } {
  return new NodeBody(res, limit);
}

// A class, not a closure per step: one is held by every open stream for its whole length.
class NodeBody implements BodyReader {
  readonly #res: IncomingMessage;
  readonly #limit: UpstreamMessageLimit | undefined;
  #mode: 'unclaimed' | 'reader' | 'web' = 'unclaimed';
  /** `true` until the body ends, fails or is cancelled. */
  #open = true;
  #failure: Error | undefined;
  // The web view, made when first asked for: a body handed to a `BodyReader` (every streamed
  // call of the gateway) never needs one.
  #web: ReadableStream<Uint8Array> | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  // The reader view.
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #waiting: { resolve: (chunks: readonly Uint8Array[] | undefined) => void; reject: (error: Error) => void } | undefined;
  readonly #onData = (chunk: Buffer): void => {
    const tooLarge = this.#limit?.add(chunk);
    if (tooLarge !== undefined) {
      // Fails the body through the response's 'error' (`#onError`), as a reset would.
      this.#res.destroy(tooLarge);
      return;
    }
    if (this.#mode === 'reader') this.#readerData(chunk);
    else this.#webData(chunk);
  };

  readonly #onEnd = (): void => this.#settle();
  readonly #onError = (error: Error): void => this.#settle(error);
  readonly #onClose = (): void => {
    if (this.#open) this.#settle(new Error('The upstream response closed before it ended.'));
  };

  constructor(res: IncomingMessage, limit: UpstreamMessageLimit | undefined) {
    this.#res = res;
    this.#limit = limit;
    // `on`, not `once`: a response ends and closes once, and a `once` wrapper would stay as
    // long as the body streams. 'error' stays attached for the life of the response: an
    // 'error' without a listener would be thrown.
    res.on('end', this.#onEnd);
    res.on('error', this.#onError);
    res.on('close', this.#onClose);
  }

  get web(): ReadableStream<Uint8Array> {
    return (this.#web ??= this.#makeWeb());
  }

  claim(): BodyReader | undefined {
    if (this.#mode !== 'unclaimed') return undefined;
    this.#mode = 'reader';
    this.#res.on('data', this.#onData);
    return this;
  }

  read(): Promise<readonly Uint8Array[] | undefined> {
    if (this.#chunks.length > 0) return Promise.resolve(this.#take());
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (!this.#open) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#res.resume();
    });
  }

  cancel(): void {
    this.#chunks = [];
    if (this.#open) {
      this.#open = false;
      this.#res.destroy();
    }
    const pending = this.#waiting;
    this.#waiting = undefined;
    pending?.resolve(undefined);
  }

  #settle(error?: Error): void {
    if (!this.#open) return;
    this.#open = false;
    if (error !== undefined) this.#failure = error;
    if (this.#mode === 'web') {
      try {
        if (error === undefined) this.#controller?.close();
        else this.#controller?.error(error);
      } catch {
        // Already closed or errored by the stream machinery itself: nothing left to tell.
      }
      return;
    }
    const reader = this.#waiting;
    if (reader === undefined) return;
    this.#waiting = undefined;
    if (error !== undefined) reader.reject(error);
    else reader.resolve(undefined);
  }

  #take(): Uint8Array[] {
    const taken = this.#chunks;
    this.#chunks = [];
    this.#buffered = 0;
    if (this.#res.isPaused() && this.#open) this.#res.resume();
    return taken;
  }

  #readerData(chunk: Buffer): void {
    if (!this.#open) return;
    const pending = this.#waiting;
    if (pending !== undefined) {
      this.#waiting = undefined;
      pending.resolve([chunk]);
      return;
    }
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
    if (this.#buffered >= READ_AHEAD_BYTES) this.#res.pause();
  }

  #webData(chunk: Buffer): void {
    const controller = this.#controller;
    if (!this.#open || controller === undefined) return;
    try {
      controller.enqueue(chunk);
    } catch (error) {
      this.#settle(error instanceof Error ? error : new Error(String(error)));
      this.#res.destroy();
      return;
    }
    // Paused only once 64 KiB wait unread, as for the reader: a consumer that stops at the
    // last message it needs (Ollama's client at its `done` chunk) still lets the end of the
    // body through, and the socket goes back to the pool instead of waiting for a timeout.
    if ((controller.desiredSize ?? 0) <= -READ_AHEAD_BYTES) this.#res.pause();
  }

  #startWeb(): boolean {
    if (this.#mode === 'reader') return false;
    if (this.#mode === 'unclaimed') {
      this.#mode = 'web';
      this.#res.on('data', this.#onData);
    }
    return true;
  }

  #makeWeb(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.#controller = c;
        },
        pull: (c) => {
          if (!this.#startWeb()) {
            c.error(new TypeError('The response body was already taken by a body reader.'));
            return;
          }
          if (!this.#open) {
            if (this.#failure !== undefined) c.error(this.#failure);
            else c.close();
            return;
          }
          this.#res.resume();
        },
        cancel: () => {
          if (this.#open) {
            this.#open = false;
            this.#res.destroy();
          }
        },
      },
      // Pulled only when read: a body handed to a `BodyReader` never starts flowing here.
      // Counted in bytes, for the read-ahead above.
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
  }
}

/** Methods that Node sends without a body framing header when they carry no body. */
const BODILESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The request's header lines as Node's flat raw-header array (`[name, value, name, value…]`),
 * with `Host` and the body's `Content-Length` added unless the caller set them. Node writes
 * such an array as it is (still validating every name and value), without the per-header
 * bookkeeping of a headers object; it then adds only `Connection`.
 *
 * Exported for its tests only.
 */
export function rawRequestHeaders(init: HeadersInit | undefined, host: string, method: string, body: string | Uint8Array | undefined): string[] {
  const raw: string[] = [];
  let hasHost = false;
  let hasLength = false;
  const add = (value: string, name: string): void => {
    if (name === 'host') hasHost = true;
    else if (name === 'content-length' || name === 'transfer-encoding') hasLength = true;
    raw.push(name, value);
  };
  // The SDKs pass a `Headers` (names already lower-case and validated); anything else goes through one.
  if (init !== undefined) (init instanceof Headers ? init : new Headers(init)).forEach(add);
  if (!hasHost) raw.push('host', host);
  if (!hasLength) {
    if (body !== undefined) raw.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
    else if (!BODILESS_METHODS.has(method)) raw.push('content-length', '0');
  }
  return raw;
}

/** Options of `createNodeHttpFetch`. */
export interface NodeHttpFetchOptions {
  /** Sockets per upstream origin (default 256). */
  maxSockets?: number;
  /**
   * Longest silence of an upstream, in ms, before its request is cut: waiting for the
   * headers or between two reads of the body (default 600 000; 0 disables).
   */
  idleTimeoutMs?: number;
  /**
   * The largest message an upstream may send, in bytes: one event of an SSE stream, one line
   * of an NDJSON stream, or a whole body of anything else (default 16 MiB; 0 disables). Past
   * it the body fails with core's `UpstreamMessageTooLargeError`, naming
   * `limits.upstreamMessageLimitBytes`.
   */
  maxMessageBytes?: number;
}

/**
 * Default `idleTimeoutMs`: the `openai` SDK's own request timeout, so no call the SDK would
 * have waited for (a reasoning model thinking before its first byte) is cut earlier.
 */
export const DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS = 600_000;

/** An upstream URL parsed once: Node's request options and the Host header it implies. */
interface Target {
  options: Pick<RequestOptions, 'protocol' | 'hostname' | 'port' | 'path' | 'auth'>;
  host: string;
  secure: boolean;
  /** The URL as the response reports it. */
  href: string;
}

/**
 * A `fetch` for upstream calls built on `node:http(s)` with keep-alive agents. The
 * provider SDKs accept a custom `fetch`; this one costs a fraction of the global (undici)
 * fetch per request, which is most of the gateway's own overhead. Requests whose body is
 * not a string or bytes go to the global `fetch`. Whatever the upstream does (closes,
 * resets, stalls, sends after a cancel), the outcome is a rejected promise or an errored
 * body stream, never an exception outside them.
 *
 * It watches a caller's signal in `init[FETCH_SIGNAL]` as it watches `init.signal`, and is
 * marked so (see `FETCH_SIGNAL` in `@toolwire/core/provider`): the OpenAI provider then
 * hands its signal that way, sparing the SDK's per-call `AbortSignal.any`.
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): FetchSignalFetch {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);

  // Upstream calls go to a handful of URLs: parse each once, not per request.
  const targets = new Map<string, Target>();
  const target = (input: string | URL): Target => {
    const key = typeof input === 'string' ? input : input.href;
    let parsed = targets.get(key);
    if (parsed === undefined) {
      const url = typeof input === 'string' ? new URL(input) : input;
      // `url.host` leaves out a default port and brackets an IPv6 address, as Node's own Host header does.
      const { protocol, hostname, port, path, auth } = urlToHttpOptions(url);
      // Only what Node's request reads: every field here is copied again on each request.
      const options: Target['options'] = auth === undefined ? { protocol, hostname, port, path } : { protocol, hostname, port, path, auth };
      parsed = { options, host: url.host, secure: url.protocol === 'https:', href: url.href };
      if (targets.size >= 256) targets.clear();
      targets.set(key, parsed);
    }
    return parsed;
  };

  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    // Throws a TypeError for a value that is not a signal, before anything is sent.
    const callerSignal = fetchSignalOf(init);
    if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalFetch(input, init, callerSignal);
    }
    const { options: url, host, secure, href } = target(input);
    const method = init?.method ?? 'GET';
    const headers = rawRequestHeaders(init?.headers, host, method, body ?? undefined);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    callerSignal?.throwIfAborted();
    const req = (secure ? httpsRequest : httpRequest)({ ...url, method, headers, agent: secure ? httpsAgent : httpAgent });
    // Node has written the header lines into the request already. The agent's listeners on a
    // new socket keep the request's options (this array too) for as long as the socket lives:
    // emptied, the array holds none of this request's header strings meanwhile.
    headers.length = 0;
    // The header block stays on the request for as long as the response streams: one string, not a rope.
    flattenHeaderBlock(req);
    // The request's body, options and headers stay out of the closures below: those live as
    // long as the response, and the body (the whole conversation) is not needed once sent.
    const response = awaitResponse(req, { href, nullBodyMethod: method === 'HEAD', signal, callerSignal, idleTimeoutMs, maxMessageBytes });
    try {
      req.end(body ?? undefined);
    } catch (error) {
      // Rejects `response` through the request's 'error'.
      req.destroy(error instanceof Error ? error : new Error(String(error)));
    }
    return response;
  };
  return markFetchSignal(fetch);
}

/**
 * The global fetch, for what this one does not send itself, also stopped by the caller's
 * signal from `init[FETCH_SIGNAL]` (a rare path: the composition is paid here only).
 */
function globalFetch(input: Parameters<typeof globalThis.fetch>[0], init: RequestInit | undefined, callerSignal: AbortSignal | undefined): Promise<Response> {
  if (callerSignal === undefined) return globalThis.fetch(input, init);
  // `init.signal` wins over a `Request`'s own, as in fetch itself; without it, the `Request`'s is kept.
  const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  return globalThis.fetch(input, { ...init, signal: own === undefined ? callerSignal : AbortSignal.any([own, callerSignal]) });
}

/** What `awaitResponse` needs besides the request. */
interface AwaitResponseOptions {
  href: string;
  /** A HEAD request: the response has no body whatever its headers say. */
  nullBodyMethod: boolean;
  /** The SDK's own signal (its timeout, its early exit). */
  signal: AbortSignal | undefined;
  /** The caller's signal, handed in `init[FETCH_SIGNAL]`: stops the request as `signal` does. */
  callerSignal: AbortSignal | undefined;
  idleTimeoutMs: number;
  maxMessageBytes: number;
}

/** The fetch `Response` of a request not yet ended: its listeners (abort, idle timeout, errors) hold the request and its response only. */
function awaitResponse(req: ClientRequest, options: AwaitResponseOptions): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    new PendingResponse(req, options, resolve, reject);
  });
}

/**
 * One upstream request until it closes, and what it answers. The listeners are this
 * object's fields, not a closure and a scope each: one is held by every open stream for its
 * whole length. The signals get a function too, not the object itself (`handleEvent`): Node
 * wraps such an object in a closure written straight into a property, which V8 allocates in
 * the old generation, so the object and this whole request (its response, header text,
 * buffers) survived every young-generation collection until the next full one: ~7% of a
 * non-streamed request's allocation promoted, and 10-20 ms scavenges copying it.
 */
class PendingResponse {
  readonly #req: ClientRequest;
  readonly #options: AwaitResponseOptions;
  /**
   * The promise's settling functions until it settles. Dropped then: they hold the promise,
   * and the promise its response, which the stream would otherwise keep for its whole length.
   */
  #settle: { resolve: (response: Response) => void; reject: (error: Error) => void } | undefined;
  #upstream: IncomingMessage | undefined;

  constructor(req: ClientRequest, options: AwaitResponseOptions, resolve: (response: Response) => void, reject: (error: Error) => void) {
    this.#req = req;
    this.#options = options;
    this.#settle = { resolve, reject };
    const { signal, callerSignal, idleTimeoutMs } = options;
    // `on`: a request has one response, and taking a `once` wrapper off again would leave the
    // request's listener table in its slower, larger form for as long as the response streams.
    req.on('response', this.#onResponse);
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    callerSignal?.addEventListener('abort', this.#onAbort, { once: true });
    // No listener stays on a long-lived signal past the request. (`on`, not `once`, here and
    // below: a request closes once and is destroyed at its first timeout, and a `once`
    // wrapper would stay as long as the response streams.)
    if (signal !== undefined || callerSignal !== undefined) req.on('close', this.#onClose);
    // The socket's inactivity timer: runs while waiting for headers and between body reads.
    // Set per request: a pooled socket carries the timeout its last response's
    // `Keep-Alive: timeout=…` hint gave it, which an agent-wide timeout would keep.
    if (idleTimeoutMs > 0) {
      req.on('timeout', this.#onIdle);
      req.setTimeout(idleTimeoutMs);
    }
    req.on('error', this.#onError);
  }

  #resolve(response: Response): void {
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.resolve(response);
  }

  #reject(error: Error): void {
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.reject(error);
  }

  /** An abort of either signal: the request fails (before the response) or its body does (after). */
  readonly #onAbort = (event: Event): void => {
    const signal = event.target as AbortSignal;
    this.#req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  };

  readonly #onResponse = (res: IncomingMessage): void => {
    this.#upstream = res;
    const options = this.#options;
    // Aborted while this response was on its way: `#onAbort` has cut the request.
    const aborted = abortedSignal(options);
    if (aborted !== undefined) {
      this.#reject(abortError(aborted));
      return;
    }
    const status = res.statusCode ?? 502;
    const nullBody = status === 204 || status === 304 || options.nullBodyMethod;
    // Node's parser has already refused malformed header lines; the headers are read from its raw array as they are.
    // A body compressed unasked (a proxy's doing) is read decoded (see `decodeUpstreamBody`).
    const body = nullBody ? res : decodeUpstreamBody(res);
    const response = new NodeHttpResponse(body, { url: options.href, nullBody, body: createNodeBody, maxMessageBytes: options.maxMessageBytes });
    // Providers that read streams themselves take the body without the web stream
    // (`takeBodyReader`): the response carries its `BODY_READER` itself (see there).
    this.#resolve(response);
  };

  readonly #onClose = (): void => {
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    this.#options.callerSignal?.removeEventListener('abort', this.#onAbort);
  };

  readonly #onIdle = (): void => {
    // Typed, so that the providers neither retry it (the upstream was reached and answered
    // nothing; a retry waits as long again) nor call it unreachable.
    const error = new UpstreamTimeoutError({ timeoutMs: this.#options.idleTimeoutMs, phase: this.#upstream === undefined ? 'headers' : 'body' });
    // The body's reader sees this error, not the socket's generic 'aborted'.
    this.#upstream?.destroy(error);
    this.#req.destroy(error);
  };

  readonly #onError = (error: Error): void => {
    const aborted = abortedSignal(this.#options);
    this.#reject(aborted === undefined ? error : abortError(aborted));
  };
}

/** The one of the request's signals that has aborted, if any (the SDK's first). */
function abortedSignal(options: AwaitResponseOptions): AbortSignal | undefined {
  if (options.signal?.aborted === true) return options.signal;
  return options.callerSignal?.aborted === true ? options.callerSignal : undefined;
}

/** What the fetch rejects with after `signal` aborted: its reason, as the global fetch does. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
