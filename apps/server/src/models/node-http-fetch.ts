import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';

/**
 * A response body as a web stream, pausing the socket while the reader is behind. Leaner
 * per request and per chunk than `Readable.toWeb`; a response that closes before its end
 * errors the stream.
 */
function webBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on('data', (chunk: Buffer) => {
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.once('end', () => {
        settled = true;
        controller.close();
      });
      res.once('error', (error) => {
        settled = true;
        controller.error(error);
      });
      res.once('close', () => {
        if (!settled) controller.error(new Error('The upstream response closed before it ended.'));
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      settled = true;
      res.destroy();
    },
  });
}

const toRecord = (init: HeadersInit | undefined): Record<string, string> => {
  const headers: Record<string, string> = {};
  // The SDKs pass a `Headers`; anything else goes through one.
  (init instanceof Headers ? init : new Headers(init)).forEach((value, name) => (headers[name] = value));
  return headers;
};

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

  // Upstream calls go to a handful of URLs: parse each once, not per request.
  const targets = new Map<string, ReturnType<typeof urlToHttpOptions>>();
  const target = (input: string | URL): ReturnType<typeof urlToHttpOptions> => {
    const key = typeof input === 'string' ? input : input.href;
    let parsed = targets.get(key);
    if (parsed === undefined) {
      parsed = urlToHttpOptions(typeof input === 'string' ? new URL(input) : input);
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
    const url = target(input);
    const headers = toRecord(init?.headers);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const secure = url.protocol === 'https:';
    const requestOptions = { ...url, method: init?.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent };
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(requestOptions, (res) => {
        const status = res.statusCode ?? 502;
        const nullBody = status === 204 || status === 304 || init?.method === 'HEAD';
        if (nullBody) res.resume();
        resolve(
          new Response(nullBody ? null : webBody(res), {
            status,
            statusText: res.statusMessage ?? '',
            headers: toHeaders(res.headers),
          }),
        );
      });
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
