import type { GuardedStreamFetch } from '@toolwire/sandbox';
import { AnswerWatch } from './answer-watch.ts';

/** Options of `requestScopedFetch`. */
export interface RequestScopedFetchOptions {
  /** Event-stream GETs allowed per `streamWindowMs` before the stream is given up. */
  maxStreamOpens: number;
  streamWindowMs: number;
  /** Told when the server's event stream is given up. */
  onWarning: (message: string) => void;
}

/**
 * Wraps the fetch of a streamable HTTP transport with two bounds the SDK lacks:
 *
 * - A POST that carries a request ends with that request. The SDK sends every message under
 *   one transport-wide signal, so a call that timed out or was aborted left its response
 *   stream open until `close()` (a server sending a keep-alive now and then held one
 *   connection per abandoned call). When the SDK cancels a request (it sends
 *   `notifications/cancelled` on a timeout or an abort), the POST that carried it is aborted.
 * - The server's own event stream (GET) is reopened at most `maxStreamOpens` times per
 *   window. The SDK reopens a stream that ends after the delay the server asks for
 *   (`retry: 0` allowed), and counts attempts only while they fail, so a stream that ends as
 *   soon as it opens was reopened about 300 times a second. Past the budget the GET is
 *   answered 405 here, which the SDK takes for "this server has no stream".
 */
export function requestScopedFetch(fetch: GuardedStreamFetch, options: RequestScopedFetchOptions): GuardedStreamFetch {
  const inFlight = new Map<string, AbortController>();
  let streamOpens: number[] = [];
  let streamGivenUp = false;

  return async function scopedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method === 'GET') {
      const now = Date.now();
      streamOpens = streamOpens.filter((at) => now - at < options.streamWindowMs);
      if (streamGivenUp || streamOpens.length >= options.maxStreamOpens) {
        if (!streamGivenUp) {
          streamGivenUp = true;
          options.onWarning(
            `its event stream ended and was reopened ${streamOpens.length} times within ${options.streamWindowMs / 1000} s; it is not opened again (notifications such as tools/list_changed no longer arrive; refresh() still lists the tools)`,
          );
        }
        return new Response(null, { status: 405 });
      }
      streamOpens.push(now);
      return fetch(input, init);
    }
    const message = typeof init.body === 'string' && method === 'POST' ? readMessage(init.body) : undefined;
    if (message?.method === 'notifications/cancelled') {
      const key = idKey(message.params?.requestId);
      inFlight.get(key)?.abort(new Error('the request was cancelled'));
      inFlight.delete(key);
    }
    if (message?.id === undefined || message.method === undefined) return fetch(input, init);
    const key = idKey(message.id);
    const controller = new AbortController();
    inFlight.set(key, controller);
    const forget = () => {
      if (inFlight.get(key) === controller) inFlight.delete(key);
    };
    const signal = init.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal });
    } catch (error) {
      forget();
      throw error;
    }
    if (response.body === null) {
      forget();
      return response;
    }
    // The same response, with a body that says when it is over.
    const isEventStream = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    // A stream the SDK reads for the answer (not an error page, not a 202 without one).
    const watch = isEventStream && response.ok && response.status !== 202 ? new AnswerWatch(message.id) : undefined;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            forget();
            // Ended without the answer and not resumable: the answer will never come, and
            // the call would wait for its whole timeout. It fails now, saying why.
            if (watch !== undefined) {
              watch.end();
              // A last event the server left without its blank line is read, not dropped.
              stream.enqueue(new TextEncoder().encode('\n\n'));
              if (!watch.answered && !watch.resumable) stream.enqueue(failedAnswer(message.id, watch.problem ?? 'the response stream ended without the answer'));
            }
            stream.close();
          } else {
            watch?.push(value);
            stream.enqueue(value);
          }
        } catch (error) {
          forget();
          // An event stream that breaks (past maxResponseBytes, a reset) before the answer:
          // the SDK only reports it, and the call would wait for its whole timeout. It ends
          // instead with an error answer for the request, so the call fails now, saying why.
          if (watch?.answered === true) stream.close();
          else if (isEventStream && !controller.signal.aborted && init.signal?.aborted !== true) {
            stream.enqueue(failedAnswer(message.id, `the response stream broke before the answer: ${(error instanceof Error ? error.message : String(error)).slice(0, 500)}`));
            stream.close();
          } else stream.error(error);
        }
      },
      cancel(reason) {
        forget();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

interface RpcMessage {
  id?: unknown;
  method?: string;
  params?: { requestId?: unknown };
}

function readMessage(body: string): RpcMessage | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    // A batch is not looked into: the SDK sends one message per POST.
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed) : undefined;
  } catch {
    return undefined;
  }
}

/** The key of the error data that marks an answer `requestScopedFetch` wrote itself (the server did not refuse anything). */
export const BROKEN_STREAM = 'toolwireBrokenStream';

/** An event answering request `id` with the error `text`; the blank lines first end any event the server left unfinished. */
function failedAnswer(id: unknown, text: string): Uint8Array {
  const answer = { jsonrpc: '2.0', id, error: { code: -32603, message: text, data: { [BROKEN_STREAM]: text } } };
  return new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(answer)}\n\n`);
}

function idKey(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}
