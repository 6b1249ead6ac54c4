import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/**
 * A `fetch` for upstream calls built on `node:http(s)` with keep-alive agents. The
 * provider SDKs accept a custom `fetch`; this one costs a fraction of the global (undici)
 * fetch per request, which is most of the gateway's own overhead. Requests whose body is
 * not a string or bytes go to the global `fetch`.
 */
export function createNodeHttpFetch(options: { maxSockets?: number } = {}): typeof globalThis.fetch {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);

  const toHeaders = (raw: IncomingHttpHeaders): Headers => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.set(name, value);
    }
    return headers;
  };

  return async (input, init) => {
    const body = init?.body;
    if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalThis.fetch(input, init);
    }
    const url = input instanceof URL ? input : new URL(input);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const secure = url.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        { method: init?.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent },
        (res) => {
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304 || init?.method === 'HEAD';
          if (nullBody) res.resume();
          resolve(
            new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
              status,
              statusText: res.statusMessage ?? '',
              headers: toHeaders(res.headers),
            }),
          );
        },
      );
      const onAbort = (): void => {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal?.removeEventListener('abort', onAbort));
      req.on('error', (error) => reject(signal?.aborted === true ? (signal.reason as Error) : error));
      req.end(body ?? undefined);
    });
  };
}
