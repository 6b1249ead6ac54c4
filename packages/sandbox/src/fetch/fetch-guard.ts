import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { isAllowedDomain, normalizeHost } from './allowed-domains.ts';
import { isPrivateAddress } from './private-address.ts';

/** Rules for `createGuardedFetch`. */
export interface GuardedFetchOptions {
  /** Hosts that may be fetched: exact names or `*.example.com`. Empty: nothing may be fetched. */
  allowedDomains: readonly string[];
  /** Allow loopback, private and link-local addresses (default false). */
  allowPrivateNetwork?: boolean;
  /** Largest response body accepted, in bytes (default 1 MiB). */
  maxResponseBytes?: number;
  /** Deadline for the whole fetch, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Redirects followed, each re-checked against the rules (default 5). */
  maxRedirects?: number;
  /**
   * Headers that carry credentials, removed when a redirect leaves the origin (scheme, host
   * and port) the request was sent to. `authorization`, `proxy-authorization` and `cookie`
   * always are; add custom ones such as `x-api-key`.
   */
  credentialHeaders?: readonly string[];
  /** Resolves a host name to addresses (default: the system resolver). For tests. */
  resolve?: (hostname: string) => Promise<string[]>;
}

/** What the fetched page looked like; the body is text. */
export interface GuardedResponse {
  status: number;
  statusText: string;
  /** The final URL, after redirects. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Request options a guarded fetch accepts. */
export interface GuardedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Stops the fetch (with its redirects) early; the timeout applies either way. */
  signal?: AbortSignal;
}

/** Builds the error a refused fetch rejects with. */
export type DenyError = (url: string, reason: string) => Error;

/** A fetch that only reaches what its rules allow; rejects with `FetchDeniedError` otherwise. */
export type GuardedFetch = (url: string, init?: GuardedRequestInit) => Promise<GuardedResponse>;

/** Headers the caller may not set: they are ours to decide (framing, target, encoding). */
export const DROPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding', 'upgrade']);

/**
 * The guarded fetch (see `createGuardedFetch`) with the refusal error left to the caller:
 * the worker processes throw plain errors so they need not load `@toolwire/core`.
 */
export function createFetchGuard(options: GuardedFetchOptions, deny: DenyError): GuardedFetch {
  const maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const checkedAddress = (url: URL) => checkUrl(url, options, deny);

  return async function guardedFetch(input: string, init: GuardedRequestInit = {}): Promise<GuardedResponse> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal === undefined ? timeout : AbortSignal.any([timeout, init.signal]);
    let url = parseUrl(input, undefined, deny);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    let headers: Record<string, string> = { __proto__: null } as unknown as Record<string, string>;
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      if (!DROPPED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    for (let redirects = 0; ; redirects++) {
      const pinned = await checkedAddress(url);
      const response = await send({ url, method, headers, body, pinned, signal });
      const location = response.message.headers.location;
      if (response.message.statusCode !== undefined && isRedirect(response.message.statusCode) && location !== undefined) {
        // Its body is not read: a body that never ends would hold the connection (each request has its own).
        response.message.destroy();
        if (redirects >= maxRedirects) {
          throw deny(url.href, `more than ${maxRedirects} redirects`);
        }
        const from = url;
        url = parseUrl(location, url, deny);
        ({ method, body, headers } = followRedirect(response.message.statusCode, { method, body, headers }, from, url, options.credentialHeaders));
        continue;
      }
      const text = await readBody(response.message, maxResponseBytes, () => deny(url.href, `the response is larger than ${maxResponseBytes} bytes`));
      return {
        status: response.message.statusCode ?? 0,
        statusText: response.message.statusMessage ?? '',
        url: url.href,
        headers: flattenHeaders(response.message),
        body: text,
      };
    }
  };
}

/** An address a checked host resolved to; the connection goes there and nowhere else. */
export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

/** Checks one URL against the rules and resolves the address to pin the connection to. */
export async function checkUrl(url: URL, options: GuardedFetchOptions, deny: DenyError): Promise<PinnedAddress> {
  const allowPrivate = options.allowPrivateNetwork ?? false;
  const resolve = options.resolve ?? defaultResolve;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw deny(url.href, `only http and https are allowed, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw deny(url.href, 'credentials in the URL are not allowed');
  }
  const host = normalizeHost(url.hostname);
  if (!isAllowedDomain(host, options.allowedDomains)) {
    throw deny(url.href, `host "${host}" is not on the allow-list (${options.allowedDomains.join(', ') || 'empty'})`);
  }
  const addresses = isIP(host) === 0 ? await resolve(host) : [host];
  if (addresses.length === 0) throw deny(url.href, `host "${host}" did not resolve`);
  if (!allowPrivate) {
    for (const address of addresses) {
      if (isPrivateAddress(address)) {
        throw deny(url.href, `host "${host}" resolves to ${address}, a private, loopback or link-local address`);
      }
    }
  }
  const address = addresses[0] as string;
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

async function defaultResolve(hostname: string): Promise<string[]> {
  const results = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return results.map((r) => r.address);
}

/** Parses a URL (relative to `base` for redirects); an unparsable one is refused. */
export function parseUrl(input: string, base: URL | undefined, deny: DenyError): URL {
  try {
    return new URL(input, base);
  } catch {
    throw deny(input.slice(0, 200), 'it is not a valid URL');
  }
}

/** Headers of credentials, never carried to another origin on a redirect (as WHATWG fetch and undici do). */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];
/** Headers that describe a request body, dropped with it (WHATWG fetch's request-body-header names). */
const BODY_HEADERS = new Set(['content-encoding', 'content-language', 'content-location', 'content-type']);

/** A request as a redirect leaves it: method, body and headers to send to the next URL. */
export interface RedirectedRequest {
  method: string;
  body: string | undefined;
  headers: Record<string, string>;
}

/**
 * The request to follow a redirect with, as WHATWG fetch follows one: a 303 turns anything but
 * GET and HEAD into a GET, a 301 or 302 only a POST (browsers' behaviour, kept by the spec),
 * and a body dropped takes its headers along. A redirect that leaves the origin (scheme, host
 * or port: an https to http downgrade included) drops `authorization`, `proxy-authorization`,
 * `cookie` and the headers named in `credentialHeaders`, so that an allowed host (or a
 * plain-http hop) does not receive the key meant for another.
 */
export function followRedirect(status: number, request: RedirectedRequest, from: URL, to: URL, credentialHeaders: readonly string[] = []): RedirectedRequest {
  const toGet = (status === 303 && request.method !== 'GET' && request.method !== 'HEAD') || ((status === 301 || status === 302) && request.method === 'POST');
  const crossOrigin = to.origin !== from.origin;
  if (!toGet && !crossOrigin) return request;
  const credentials = crossOrigin ? new Set([...CREDENTIAL_HEADERS, ...credentialHeaders.map((name) => name.toLowerCase())]) : undefined;
  const headers: Record<string, string> = { __proto__: null } as unknown as Record<string, string>;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (credentials?.has(lower) === true || (toGet && BODY_HEADERS.has(lower))) continue;
    headers[name] = value;
  }
  return toGet ? { method: 'GET', body: undefined, headers } : { method: request.method, body: request.body, headers };
}

/** Statuses whose `location` a fetch follows. */
export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** One request to a pinned address. */
export interface SendOptions {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  pinned: PinnedAddress;
  /** Ends the request and its response body. */
  signal: AbortSignal | undefined;
  /** Ends the request only until the response head arrives (a head deadline). */
  headSignal?: AbortSignal;
}

/** Sends one request to the pinned address, whatever DNS says now; resolves with the response head. */
export function send(options: SendOptions): Promise<{ message: IncomingMessage }> {
  const { url, pinned } = options;
  // Connect to the address we checked, whatever the resolver would say now.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all === true) {
      callback(null, [{ address: pinned.address, family: pinned.family }]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const req = request(url, {
      method: options.method,
      // The body is framed here (the caller's Content-Length is dropped): without it Node sends
      // a DELETE's or OPTIONS's body unframed, and the server reads it as a request of its own.
      headers: { ...options.headers, 'accept-encoding': 'identity', ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }) },
      lookup,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      agent: false,
    });
    const { headSignal } = options;
    const onHeadAbort = () => req.destroy(headSignal?.reason instanceof Error ? headSignal.reason : new Error('aborted'));
    if (headSignal?.aborted === true) onHeadAbort();
    else headSignal?.addEventListener('abort', onHeadAbort, { once: true });
    req.on('response', (message) => {
      headSignal?.removeEventListener('abort', onHeadAbort);
      resolvePromise({ message });
    });
    req.on('error', (error) => {
      headSignal?.removeEventListener('abort', onHeadAbort);
      reject(error);
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

function readBody(message: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    message.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        message.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    message.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    message.on('error', reject);
  });
}

function flattenHeaders(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
