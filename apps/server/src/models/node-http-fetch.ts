import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { NodeHttpResponse } from './node-http-response.ts';

/**
 * A response body as a web stream, pausing the socket while the reader is behind. Leaner
 * per request and per chunk than `Readable.toWeb`; a response that closes before its end
 * errors the stream.
 *
 * Exported for its tests only.
 *
 * Every controller call is guarded: the consumer may cancel at any moment (the SDKs cancel
 * at `[DONE]`, before the socket's `'end'`), and a socket event arriving after that must
 * not throw `ERR_INVALID_STATE` from an emitter listener, where nothing would catch it.
 */
export function toWebBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  // `open` until the body ends, fails or is cancelled; nothing touches the controller after.
  let open = true;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const settle = (error?: unknown): void => {
    if (!open) return;
    open = false;
    try {
      if (error === undefined) controller?.close();
      else controller?.error(error);
    } catch {
      // Already closed or errored by the stream machinery itself: nothing left to tell.
    }
  };
  res.on('data', (chunk: Buffer) => {
    if (!open || controller === undefined) return;
    try {
      controller.enqueue(chunk);
    } catch (error) {
      settle(error);
      res.destroy();
      return;
    }
    if ((controller.desiredSize ?? 0) <= 0) res.pause();
  });
  res.once('end', () => settle());
  // Stays attached for the life of the response: an 'error' without a listener would be thrown.
  res.on('error', (error) => settle(error));
  res.once('close', () => {
    if (open) settle(new Error('The upstream response closed before it ended.'));
  });
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    pull() {
      if (open) res.resume();
    },
    cancel() {
      open = false;
      res.destroy();
    },
  });
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
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): typeof globalThis.fetch {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_UPSTREAM_IDLE_TIMEOUT_MS;
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

  return async (input, init) => {
    const body = init?.body;
    if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalThis.fetch(input, init);
    }
    const { options: url, host, secure, href } = target(input);
    const method = init?.method ?? 'GET';
    const headers = rawRequestHeaders(init?.headers, host, method, body ?? undefined);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const requestOptions = { ...url, method, headers, agent: secure ? httpsAgent : httpAgent };
    return new Promise<Response>((resolve, reject) => {
      let upstream: IncomingMessage | undefined;
      const req = (secure ? httpsRequest : httpRequest)(requestOptions, (res) => {
        upstream = res;
        const status = res.statusCode ?? 502;
        // Node's parser has already refused malformed header lines; the headers are read from its raw array as they are.
        const response = new NodeHttpResponse(res, { url: href, nullBody: status === 204 || status === 304 || method === 'HEAD', stream: toWebBody });
        resolve(response);
      });
      const onAbort = (): void => {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal?.removeEventListener('abort', onAbort));
      if (idleTimeoutMs > 0) {
        // The socket's inactivity timer: runs while waiting for headers and between body reads.
        // Set per request: a pooled socket carries the timeout its last response's
        // `Keep-Alive: timeout=…` hint gave it, which an agent-wide timeout would keep.
        req.setTimeout(idleTimeoutMs, () => {
          const error = new Error(`The upstream sent nothing for ${idleTimeoutMs / 1000} s; the request was stopped.`);
          // The body's reader sees this error, not the socket's generic 'aborted'.
          upstream?.destroy(error);
          req.destroy(error);
        });
      }
      req.on('error', (error) => reject(signal?.aborted === true ? (signal.reason as Error) : error));
      req.end(body ?? undefined);
    });
  };
}
