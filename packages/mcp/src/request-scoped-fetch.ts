import { FetchDeniedError } from '@toolwire/sandbox';
import type { GuardedStreamFetch } from '@toolwire/sandbox';
import { AnswerWatch } from './answer-watch.ts';
import { RetryCap } from './retry-cap.ts';

/** Options of `requestScopedFetch`. */
export interface RequestScopedFetchOptions {
  /**
   * Event-stream GETs allowed per `streamWindowMs`: the server's own stream before it is
   * given up, and, counted apart, the resumptions of each request's stream before that request fails.
   */
  maxStreamOpens: number;
  streamWindowMs: number;
  /** Told when the server's event stream is given up. */
  onWarning: (message: string) => void;
}

/** One request: the POST that carried it and the GETs that resumed its response stream. */
interface Exchange {
  readonly id: unknown;
  readonly key: string;
  /** Aborted when the request is cancelled: ends its POST and any GET resuming its stream. */
  readonly controller: AbortController;
  /** Answered, cancelled or failed here: nothing more of it is read, and its stream is not resumed. */
  finished: boolean;
  /** When its stream was reopened (GET with Last-Event-ID), within the window. */
  resumes: number[];
  /** Its POST was answered (a head): aborting it now ends a stream, not the SDK's request. */
  headed: boolean;
}

// Event ids kept for requests that are over (so that a late resumption of one is refused
// here) and for the server's own stream; the oldest are dropped past this many.
const MAX_FINISHED_EVENT_IDS = 256;
const SERVER_STREAM = Symbol('the server stream');

/**
 * Wraps the fetch of a streamable HTTP transport with bounds the SDK lacks:
 *
 * - A POST that carries a request ends with that request. The SDK sends every message under
 *   one transport-wide signal, so a call that timed out or was aborted left its response
 *   stream open until `close()` (a server sending a keep-alive now and then held one
 *   connection per abandoned call). When the SDK cancels a request (it sends
 *   `notifications/cancelled` on a timeout or an abort), the POST that carried it is aborted.
 * - So is a GET that resumes its response stream. A stream with event ids that breaks before
 *   the answer is reopened by the SDK (GET with Last-Event-ID, under the same transport-wide
 *   signal), and again each time the reopened one ends without it. Such a GET is known here
 *   by its Last-Event-ID (an id seen on the request's streams) and belongs to the request:
 *   it is aborted with it, refused once the request is over (the SDK also resumes after an
 *   error answer), and counted in the request's own budget of `maxStreamOpens` per window,
 *   past which the request fails at once, saying why, rather than waiting for its timeout.
 *   A failed reopen (an HTTP error, a refused connection) fails it at once too.
 * - The server's own event stream (GET) is reopened at most `maxStreamOpens` times per
 *   window. The SDK reopens a stream that ends after the delay the server asks for
 *   (`retry: 0` allowed), and counts attempts only while they fail, so a stream that ends as
 *   soon as it opens was reopened about 300 times a second. Past the budget the GET is
 *   answered 405 here, which the SDK takes for "this server has no stream". Resumptions of
 *   requests' streams do not count here, nor this stream's reopens in theirs.
 * - A request answered on another stream (the SDK takes an answer on any) is over for its
 *   own stream too: that stream, and any GET resuming it, is ended.
 * - A `retry:` delay over `MAX_RETRY_MS` reaches the SDK as `MAX_RETRY_MS`: it keeps one
 *   reconnection timer and `close()` clears only the last one set, so an earlier one, at the
 *   server's delay, held the process open after `close()`.
 */
export function requestScopedFetch(fetch: GuardedStreamFetch, options: RequestScopedFetchOptions): GuardedStreamFetch {
  const inFlight = new Map<string, Exchange>();
  // The last event id of each stream that the SDK may resume, and whose stream it is: a
  // request's, or the server's own. An id used twice (a server that numbers each stream's
  // events on its own) belongs to the stream that ended with it last, which the SDK resumes next.
  const resumable = new Map<string, Exchange | typeof SERVER_STREAM>();
  let streamOpens: number[] = [];
  let streamGivenUp = false;

  const finish = (exchange: Exchange) => {
    exchange.finished = true;
    if (inFlight.get(exchange.key) === exchange) inFlight.delete(exchange.key);
  };
  /**
   * The SDK takes an answer on any stream: a request answered on another stream than its
   * own (or on the server's) is over, and its stream, which the SDK may still be resuming,
   * ends with it rather than being resumed until close().
   */
  const answeredOn = (owner: Exchange | undefined) => (id: string | number) => {
    // The SDK finds a request by Number(id).
    const answered = inFlight.get(idKey(Number(id)));
    if (answered === undefined || answered === owner) return;
    finish(answered);
    if (answered.headed) answered.controller.abort(new Error('the request was answered on another stream'));
  };
  const remember = (eventId: string, owner: Exchange | typeof SERVER_STREAM) => {
    resumable.delete(eventId);
    resumable.set(eventId, owner);
    if (resumable.size <= MAX_FINISHED_EVENT_IDS) return;
    let excess = resumable.size - MAX_FINISHED_EVENT_IDS;
    for (const [id, owner] of resumable) {
      if (excess === 0) break;
      if (owner !== SERVER_STREAM && !owner.finished) continue;
      resumable.delete(id);
      excess--;
    }
  };

  /**
   * The same response, with a body that says when it is over: read beside the SDK for the
   * request's answer, failed at once when it ends or breaks without it and the SDK will not
   * resume it. `resumedFrom` is the Last-Event-ID of a GET that resumed the request's stream.
   */
  function watched(response: Response, exchange: Exchange, signal: AbortSignal | undefined, resumedFrom?: string): Response {
    if (response.body === null) {
      finish(exchange);
      return response;
    }
    const isEventStream = resumedFrom !== undefined || (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    // A stream the SDK reads for the answer (not an error page, not a 202 without one).
    const watch = isEventStream && response.ok && response.status !== 202 ? new AnswerWatch(exchange.id, { reconnectable: resumedFrom !== undefined, onAnswer: answeredOn(exchange) }) : undefined;
    const reader = response.body.getReader();
    // What the SDK reads as an event stream asks for at most MAX_RETRY_MS between reopens.
    const cap = isEventStream ? new RetryCap() : undefined;
    const flush = (stream: ReadableStreamDefaultController<Uint8Array>) => {
      const rest = cap?.end();
      if (rest !== undefined && rest.length > 0) stream.enqueue(rest);
    };
    let endsWithCR = false;
    /**
     * Where the SDK resumes once this stream is over, remembered for its request: the last
     * event id, or the one a GET resumed from. An event carrying it is added at the end so
     * that the SDK resumes from an id known here (a resumed stream without ids of its own
     * would otherwise be reopened without one, as the server's own stream).
     */
    const markEnd = (stream: ReadableStreamDefaultController<Uint8Array>, cutOff: boolean) => {
      const eventId = watch?.lastEventId ?? resumedFrom;
      if (eventId === undefined) return;
      remember(eventId, exchange);
      // An event cut off would be completed by one added after it; the SDK drops it otherwise,
      // and its last event id is then the one remembered already.
      if (!cutOff || watch?.lastEventId === undefined) stream.enqueue(resumeMark(eventId));
    };
    // The SDK cannot send an id outside Latin-1 as Last-Event-ID (Headers refuses it): it
    // never resumes from it, and the call would wait for its whole timeout.
    const unsendable = () => watch?.lastEventId !== undefined && !isHeaderValue(watch.lastEventId);
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            flush(stream);
            if (watch === undefined) {
              finish(exchange);
              stream.close();
              return;
            }
            watch.end();
            // A last event the server left without its blank line is read, not dropped.
            stream.enqueue(new TextEncoder().encode('\n\n'));
            // Ended without the answer and not resumable: the answer will never come, and
            // the call would wait for its whole timeout. It fails now, saying why.
            if (watch.answered) finish(exchange);
            else if (!exchange.finished && (!watch.resumable || unsendable())) {
              stream.enqueue(failedAnswer(exchange.id, watch.problem ?? `the response stream ended without the answer${unsendable() ? UNSENDABLE : ''}`));
              finish(exchange);
            }
            markEnd(stream, false);
            stream.close();
          } else {
            watch?.push(value);
            if (value.length > 0) endsWithCR = value[value.length - 1] === 13;
            stream.enqueue(cap === undefined ? value : cap.push(value));
          }
        } catch (error) {
          // An event stream that breaks (past maxResponseBytes, a reset) before the answer:
          // the SDK only reports it, and the call would wait for its whole timeout. It ends
          // instead with an error answer for the request, so the call fails now, saying why.
          // A resumable stream (an event id) that breaks is the SDK's to resume: it reopens it
          // with Last-Event-ID and reads the answer there. It is ended, not errored: an error
          // would drop what the SDK had not yet read (the event with the id among it). A last
          // CR is made a CRLF, which the SDK's parser waits for. Past maxResponseBytes the
          // stream is not resumed: the same event would come again.
          const ours = exchange.controller.signal.aborted || signal?.aborted === true;
          if (watch === undefined) {
            finish(exchange);
            stream.error(error);
            return;
          }
          const cutOff = watch.pending;
          // A line held back goes to the SDK as it would have (it reads what came before a break).
          flush(stream);
          if (watch.answered) {
            finish(exchange);
            markEnd(stream, cutOff);
            stream.close();
          } else if (ours || exchange.finished) {
            finish(exchange);
            // Ended rather than errored where the SDK would resume it: it resumes from the
            // id remembered, and that GET is refused here.
            if (watch.lastEventId === undefined && resumedFrom === undefined) stream.error(error);
            else {
              if (endsWithCR) stream.enqueue(new Uint8Array([10]));
              markEnd(stream, cutOff);
              stream.close();
            }
          } else if (watch.resumable && !unsendable() && !FetchDeniedError.isInstance(error)) {
            if (endsWithCR) stream.enqueue(new Uint8Array([10]));
            markEnd(stream, cutOff);
            stream.close();
          } else {
            const why = unsendable() ? UNSENDABLE : `: ${(error instanceof Error ? error.message : String(error)).slice(0, 500)}`;
            stream.enqueue(failedAnswer(exchange.id, `the response stream broke before the answer${why}`));
            finish(exchange);
            markEnd(stream, false);
            stream.close();
          }
        }
      },
      cancel(reason) {
        finish(exchange);
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /**
   * The server's own event stream (the SDK reads any body of a GET answered 2xx as one): its
   * `retry:` delays capped (see `MAX_RETRY_MS`), and read for answers to requests.
   */
  function serverStream(response: Response): Response {
    if (!response.ok || response.body === null) return response;
    const reader = response.body.getReader();
    const cap = new RetryCap();
    const watch = new AnswerWatch(undefined, { onAnswer: answeredOn(undefined) });
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          // The SDK reopens it from the last event id it read.
          if (watch.lastEventId !== undefined) remember(watch.lastEventId, SERVER_STREAM);
          throw error;
        }
        const { done, value } = read;
        if (!done) {
          watch.push(value);
          stream.enqueue(cap.push(value));
          return;
        }
        watch.end();
        if (watch.lastEventId !== undefined) remember(watch.lastEventId, SERVER_STREAM);
        const rest = cap.end();
        if (rest.length > 0) stream.enqueue(rest);
        stream.close();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** A GET that resumes the stream of `exchange` from `eventId`: scoped to the request, within its budget. */
  async function resume(exchange: Exchange, eventId: string, input: string | URL, init: RequestInit): Promise<Response> {
    // Over (answered, cancelled, failed): the SDK takes 405 for "no stream" and stops.
    if (exchange.finished) return stopped();
    const now = Date.now();
    exchange.resumes = exchange.resumes.filter((at) => now - at < options.streamWindowMs);
    if (exchange.resumes.length >= options.maxStreamOpens) {
      finish(exchange);
      return failedStream(
        exchange.id,
        eventId,
        `the response stream broke before the answer and was resumed ${exchange.resumes.length} times within ${options.streamWindowMs / 1000} s; it is not resumed again`,
      );
    }
    exchange.resumes.push(now);
    const signal = init.signal ? AbortSignal.any([init.signal, exchange.controller.signal]) : exchange.controller.signal;
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal });
    } catch (error) {
      finish(exchange);
      if (signal.aborted) return stopped();
      return failedStream(exchange.id, eventId, `the response stream broke before the answer, and resuming it failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 500)}`);
    }
    // A redirect within the origin is the SDK's to follow (it comes back here, the same resumption).
    if (response.status >= 300 && response.status < 400) return response;
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      finish(exchange);
      return failedStream(exchange.id, eventId, `the response stream broke before the answer, and the server refused to resume it (HTTP ${response.status})`);
    }
    return watched(response, exchange, init.signal ?? undefined, eventId);
  }

  return async function scopedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method === 'GET') {
      // A GET the SDK's reconnection timer makes after close(): nothing to send.
      if (init.signal?.aborted === true) return stopped();
      const eventId = new Headers(init.headers).get('last-event-id');
      const owner = eventId === null ? undefined : resumable.get(eventId);
      if (owner !== undefined && owner !== SERVER_STREAM && eventId !== null) return resume(owner, eventId, input, init);
      const now = Date.now();
      streamOpens = streamOpens.filter((at) => now - at < options.streamWindowMs);
      if (streamGivenUp || streamOpens.length >= options.maxStreamOpens) {
        if (!streamGivenUp) {
          streamGivenUp = true;
          options.onWarning(
            `its event stream ended and was reopened ${streamOpens.length} times within ${options.streamWindowMs / 1000} s; it is not opened again (notifications such as tools/list_changed no longer arrive; refresh() still lists the tools)`,
          );
        }
        return stopped();
      }
      streamOpens.push(now);
      return fetch(input, init).then(serverStream, (error: unknown) => {
        if (init.signal?.aborted === true) return stopped();
        throw error;
      });
    }
    const message = typeof init.body === 'string' && method === 'POST' ? readMessage(init.body) : undefined;
    if (message?.method === 'notifications/cancelled') {
      const cancelled = inFlight.get(idKey(message.params?.requestId));
      if (cancelled !== undefined) {
        finish(cancelled);
        cancelled.controller.abort(new Error('the request was cancelled'));
      }
    }
    if (message?.id === undefined || message.method === undefined) return fetch(input, init);
    const exchange: Exchange = { id: message.id, key: idKey(message.id), controller: new AbortController(), finished: false, resumes: [], headed: false };
    inFlight.set(exchange.key, exchange);
    const signal = init.signal ? AbortSignal.any([init.signal, exchange.controller.signal]) : exchange.controller.signal;
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal });
    } catch (error) {
      finish(exchange);
      throw error;
    }
    exchange.headed = true;
    return watched(response, exchange, init.signal ?? undefined);
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

/**
 * The answer to a GET that is not to be made or was ended here (405: the SDK takes it for "no
 * stream" and does not try again). A GET that failed instead would be retried after the delay
 * the server last asked for (`retry:`, any number of ms): after `close()` a timer nothing
 * clears would hold the process open that long, for a GET that cannot be sent.
 */
function stopped(): Response {
  return new Response(null, { status: 405 });
}

/** An event with id `eventId` and no message (the SDK skips it), after blank lines that end any event before it. */
function resumeMark(eventId: string): Uint8Array {
  return new TextEncoder().encode(`\n\nid: ${eventId}\ndata:\n\n`);
}

/**
 * The answer to a resuming GET that is not sent: an event stream with the error answer for
 * the request, ending with `eventId`, so that the SDK's next resumption is refused here.
 */
function failedStream(id: unknown, eventId: string, text: string): Response {
  const bytes = new Uint8Array([...failedAnswer(id, text), ...resumeMark(eventId)]);
  return new Response(bytes, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const UNSENDABLE = ', and its event id cannot be sent back to resume it (a Last-Event-ID header holds Latin-1 only)';

function isHeaderValue(text: string): boolean {
  try {
    new Headers({ 'last-event-id': text });
    return true;
  } catch {
    return false;
  }
}

function idKey(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}
