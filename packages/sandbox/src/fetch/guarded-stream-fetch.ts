import type { IncomingMessage } from 'node:http';
import { FetchDeniedError } from '../errors.ts';
import { checkUrl, DROPPED_HEADERS, followRedirect, isRedirect, parseUrl, send } from './fetch-guard.ts';
import type { DenyError, GuardedFetchOptions } from './fetch-guard.ts';

/** Rules for `createGuardedStreamFetch`: the guarded fetch's, with a streaming body. */
export interface GuardedStreamFetchOptions extends GuardedFetchOptions {
  /** Largest body one response may stream, in bytes (default 8 MiB); past it the body errors. */
  maxResponseBytes?: number;
  /** Deadline for the response head, redirects included (default 30 s); the body is bounded by size and the caller's signal. */
  timeoutMs?: number;
}

/** A WHATWG-shaped `fetch` that only reaches what its rules allow. */
export type GuardedStreamFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The guarded fetch's rules (allow-list, no private addresses unless allowed, the
 * connection pinned to the checked address, every redirect re-checked) behind the standard
 * `fetch` signature, with the body streamed rather than buffered: for clients that read
 * server-sent events (an MCP streamable HTTP transport takes it as its `fetch`). The
 * caller's `signal` aborts the request and the body; a body past `maxResponseBytes` errors.
 * Refusals reject with `FetchDeniedError`.
 * @example
 * const transport = new StreamableHTTPClientTransport(url, { fetch: createGuardedStreamFetch({ allowedDomains: ['mcp.example.com'] }) });
 */
export function createGuardedStreamFetch(options: GuardedStreamFetchOptions): GuardedStreamFetch {
  const maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const deny: DenyError = (url, reason) => new FetchDeniedError({ url, reason });

  return async function guardedStreamFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const callerSignal = init.signal ?? undefined;
    const headTimeout = new AbortController();
    const timer = setTimeout(() => headTimeout.abort(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    const signal = callerSignal === undefined ? headTimeout.signal : AbortSignal.any([callerSignal, headTimeout.signal]);
    try {
      let url = parseUrl(typeof input === 'string' ? input : input.href, undefined, deny);
      let method = (init.method ?? 'GET').toUpperCase();
      let body = bodyText(init.body, url.href, deny);
      let headers: Record<string, string> = { __proto__: null } as unknown as Record<string, string>;
      new Headers(init.headers).forEach((value, name) => {
        if (!DROPPED_HEADERS.has(name)) headers[name] = value;
      });
      for (let redirects = 0; ; redirects++) {
        const pinned = await checkUrl(url, options, deny);
        // The body outlives the head deadline: only the caller's signal may end it.
        const { message } = await send({ url, method, headers, body, pinned, signal: callerSignal, headSignal: signal });
        const status = message.statusCode ?? 0;
        const location = message.headers.location;
        // `redirect: 'manual'` hands the redirect to the caller (the MCP SDK follows only
        // same-origin ones, each through this fetch again); 'error' refuses it.
        if (isRedirect(status) && location !== undefined && init.redirect !== 'manual') {
          // Its body is not read: a body that never ends would hold the connection (each request has its own).
          message.destroy();
          if (init.redirect === 'error') throw deny(url.href, `it redirects (to ${location.slice(0, 200)}) and redirect is 'error'`);
          if (redirects >= maxRedirects) throw deny(url.href, `more than ${maxRedirects} redirects`);
          const from = url;
          url = parseUrl(location, url, deny);
          ({ method, body, headers } = followRedirect(status, { method, body, headers }, from, url, options.credentialHeaders));
          continue;
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(message.headers)) {
          if (value === undefined) continue;
          for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
        }
        const hasBody = !NULL_BODY_STATUSES.has(status) && method !== 'HEAD';
        if (!hasBody) message.resume();
        const response = new Response(hasBody ? cappedBody(message, maxResponseBytes, () => deny(url.href, `the response is larger than ${maxResponseBytes} bytes`)) : null, {
          status,
          statusText: message.statusMessage ?? '',
          headers: responseHeaders,
        });
        Object.defineProperty(response, 'url', { value: url.href });
        return response;
      }
    } finally {
      clearTimeout(timer);
    }
  };
}

function bodyText(body: RequestInit['body'], url: string, deny: DenyError): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw deny(url, 'only string bodies are supported');
}

function cappedBody(message: IncomingMessage, maxBytes: number, tooLarge: () => Error): ReadableStream<Uint8Array> {
  let size = 0;
  // Once the stream is closed, errored or cancelled, `data` a resumed message had already
  // scheduled may still come: enqueueing it would throw out of the event emitter and end
  // the process (a 405 with a body, cancelled by the MCP SDK, did).
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      message.on('data', (chunk: Buffer) => {
        if (finished) return;
        size += chunk.length;
        if (size > maxBytes) {
          finished = true;
          controller.error(tooLarge());
          message.destroy();
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
        // Backpressure: stop reading the socket until the consumer pulls again.
        if ((controller.desiredSize ?? 1) <= 0) message.pause();
      });
      message.on('end', () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      message.on('error', (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
    },
    pull() {
      if (!finished) message.resume();
    },
    cancel() {
      finished = true;
      message.destroy();
    },
  });
}
