import type { ChatModel, ChatRequest, ChatStreamEvent } from '@toolwire/core';
import { nextThen } from '@toolwire/core/provider';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/api-key-store.ts';
import { flattenHeaderBlock } from '../flatten-header-block.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { runGatewayLoop, runGatewayLoopOnce } from '../loop/run-gateway-loop.ts';
import type { GatewayLoopOptions } from '../loop/run-gateway-loop.ts';
import type { GatewayMetrics } from '../observability/gateway-metrics.ts';
import { logClientGone } from '../observability/access-log.ts';
import { toToolAuditEvent } from '../tools/audit-event.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import { gatewayAbortReason, requestTimeoutError } from '../wire/shutting-down.ts';
import { createSseWriter } from '../wire/sse-writer.ts';
import type { SseWriter } from '../wire/sse-writer.ts';
import { toGatewayError } from '../wire/to-gateway-error.ts';

/** How one API writes a streamed answer. */
export interface StreamWire {
  /** Frames that open the stream, before the first event (none on chat completions). */
  start(): readonly unknown[];
  push(event: ChatStreamEvent): readonly unknown[];
  /** The finished SSE frame of an event the wire frames without building a payload (a plain text delta), or undefined. */
  textFrame?: (event: ChatStreamEvent) => string | undefined;
  /** Frames that end a failed stream. */
  fail(error: GatewayError): readonly unknown[];
  /** Whether the events reached their end (the finish). */
  readonly finished: boolean;
  /** Ends a finished stream (`data: [DONE]` on chat completions, nothing more on Responses). */
  close(writer: SseWriter): void;
  /** Frames one payload (default: `data:` only). */
  frame?: (payload: unknown) => string;
}

/** Options of `answerGatewayCall`. */
export interface GatewayCallOptions {
  context: GatewayContext;
  req: FastifyRequest;
  reply: FastifyReply;
  principal: Principal;
  model: ChatModel;
  /** The prepared request (see `prepareChatRequest`) and the names of the client's own tools in it. */
  request: ChatRequest;
  clientTools: ReadonlySet<string>;
  stream: boolean;
  /** The non-streamed body from the loop's events (the closing `finish` last); throws on an `error` event. */
  answer: (events: readonly ChatStreamEvent[]) => unknown;
  /** The streamed form, created once the stream starts. */
  streamWire: () => StreamWire;
}

/** Settles a request's handling once its answer is over: resolved, or rejected with a failure Fastify answers. */
export interface CallEnding {
  resolve(): void;
  reject(error: unknown): void;
  /** A started stream failed: its error frames were sent (told before `resolve`, at most once). */
  streamFailed(error: unknown): void;
}

/**
 * Runs the gateway's tool loop for one admitted, prepared request (turns restored) and
 * answers it in one API's wire format: hidden turns are remembered in the shared state,
 * token counts and stream timings go to the metrics, a client that goes away aborts the upstream and the tools; the shutdown grace period
 * can abort it; a failure before the first streamed byte is an HTTP error in OpenAI's
 * envelope, after it the API's error frames; nothing the upstream does escapes.
 *
 * `ending` is told when the answer is over, rather than a promise returned: an open stream
 * then holds the caller's one settling object, not a chain of promises and reactions (one
 * per async function and `finally` on the way) for its whole length.
 */
export function answerGatewayCall(options: GatewayCallOptions, ending: CallEnding): void {
  const { context, reply } = options;
  const controller = new AbortController();
  const res = reply.raw;
  // The response closing before it finished means the client went away: stop upstream and tools.
  // (`on`, not `once`: removed when the answer is over, and `once` wraps it in one more closure per request.)
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort(new Error('The client disconnected.'));
  };
  res.on('close', onClose);
  // A client that left while the request waited on the state (admission, turn restoring)
  // closed the response before this listener was there: no model call for nobody.
  if (res.destroyed) onClose();
  context.inflight.add(controller);
  const deadline = startDeadline(controller, { res, req: options.req, ms: context.maxRequestDurationMs });
  const ended = new CallCleanUp({ inflight: context.inflight, controller, res, onClose, ending, deadline });
  try {
    startAnswer(options, controller, ended);
  } catch (error) {
    // Nothing started: forget the controller, listener and deadline here; the caller releases its admission.
    context.inflight.delete(controller);
    res.off('close', onClose);
    clearTimeout(deadline);
    throw error;
  }
}

/** `limits.maxRequestDurationMs`'s default: one hour. */
export const DEFAULT_MAX_REQUEST_DURATION_MS = 3_600_000;

/** Timers cannot wait longer (about 24.8 days): a bound past it is no bound. */
const LONGEST_TIMER_MS = 2_147_483_647;

/** How long a request stopped by its deadline may take to send its 504 or error frame before its connection is cut. */
const DEADLINE_CUT_AFTER_MS = 1000;

/**
 * Aborts the request with `requestTimeoutError` once it has run `ms` (0, or past what a timer
 * can wait: never), and cuts its connection a moment later if its answer has not gone out by
 * then: a client that stopped reading would otherwise hold the stream (and its key's
 * concurrency slot) waiting for a drain, past the bound. Unreferenced: it never keeps the
 * process alive by itself.
 */
function startDeadline(controller: AbortController, { res, req, ms }: { res: FastifyReply['raw']; req: FastifyRequest; ms: number }): NodeJS.Timeout | undefined {
  if (ms <= 0 || ms > LONGEST_TIMER_MS) return undefined;
  const timer = setTimeout(() => {
    controller.abort(requestTimeoutError(ms));
    const cut = setTimeout(() => {
      if (res.writableFinished || res.destroyed) return;
      req.log.warn({ code: 'request_timeout' }, 'connection cut: the request ran past limits.maxRequestDurationMs and its answer could not be sent');
      res.destroy();
    }, DEADLINE_CUT_AFTER_MS);
    cut.unref();
  }, ms);
  timer.unref();
  return timer;
}

/** Runs the loop and answers, once or streamed; `ended` is told when the answer is over. */
function startAnswer(options: GatewayCallOptions, controller: AbortController, ended: CallCleanUp): void {
  const { context, req, principal } = options;
  const loop: GatewayLoopOptions = {
    model: options.model,
    request: options.request,
    clientTools: options.clientTools,
    registry: context.serverTools,
    principal: principal.id,
    signal: controller.signal,
    toolTimeoutMs: context.toolTimeoutMs,
    onToolAudit: (audit) => {
      if (RAN.has(audit.outcome)) ended.toolRan(audit.toolName);
      context.audit(toToolAuditEvent(audit, { principal: principal.id, requestId: req.id }));
    },
    maxSteps: context.maxSteps,
    answerLimits: context.answerLimits,
    stream: options.stream,
    // The answer's last event waits for the write, so that the client's next request, on any
    // instance, finds the turn. A turn the state could not keep (its writes are bounded by
    // the state's command timeout) is logged, and the model will see the client's half only.
    onHiddenTurn: (turn) =>
      context.state.rememberTurn(principal.id, turn).catch((error: unknown) => {
        req.log.error({ err: error }, 'could not keep the hidden half of a mixed turn');
      }),
  };
  if (!options.stream) {
    runOnce(options, loop, controller.signal, ended);
    return;
  }
  const { metrics } = context;
  const events = runGatewayLoop(loop);
  const counted = metrics.enabled ? countTokens(events, metrics, options.model.provider) : events;
  stream({ req, reply: options.reply, events: counted, wire: options.streamWire, signal: controller.signal, metrics }, ended);
}

/**
 * The whole run first, then one body: no event stream in between (see `runGatewayLoopOnce`).
 * A function of its own: its closures over `options` would otherwise share the scope of the
 * loop's callbacks, which a stream holds for its whole length, and keep the call's options
 * (the wire's closures and what they close over) alive with them.
 */
function runOnce(options: GatewayCallOptions, loop: GatewayLoopOptions, signal: AbortSignal, ended: CallCleanUp): void {
  runGatewayLoopOnce(loop).then(
    (events) => answerOnce(options, events, signal, ended),
    (error: unknown) => failOnce(options, error, signal, ended),
  );
}

// Audit outcomes of a server-tool call that ran (a refused call never started).
const RAN: ReadonlySet<string> = new Set(['success', 'execution_error', 'timeout', 'aborted']);

/**
 * The failure of a request whose server tools already ran, as the client gets it: an SDK
 * retries a retryable answer (`x-should-retry: true`, 429 and 5xx) on its own, and that
 * retry would run the tools again (an order placed twice), so it is answered as not
 * retryable, saying why. The shutdown's `shutting_down` keeps its documented retry.
 */
function notToRetry(error: unknown, toolsRan: ReadonlySet<string>): unknown {
  const gatewayError = GatewayError.isInstance(error) ? error : toGatewayError(error);
  if (!gatewayError.retryable || gatewayError.code === 'shutting_down') return error;
  const names = [...toolsRan].map((name) => `'${name}'`).join(', ');
  return new GatewayError({
    status: gatewayError.status,
    type: gatewayError.type,
    param: gatewayError.param,
    code: gatewayError.code,
    message: `${gatewayError.message} The gateway's server tools already ran for this request (${names}), so it is not retried automatically: a retry would run them again. Retry it yourself if that is safe.`,
    ...(gatewayError.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: gatewayError.retryAfterSeconds }),
    retryable: false,
    cause: error,
  });
}

/** What `CallCleanUp` undoes before it tells the caller's ending. */
interface CallCleanUpOptions {
  inflight: Set<AbortController>;
  controller: AbortController;
  res: FastifyReply['raw'];
  onClose: () => void;
  ending: CallEnding;
  /** The `maxRequestDurationMs` timer, if any. */
  deadline: NodeJS.Timeout | undefined;
}

/** Forgets the call's controller and close listener, then tells the caller's ending. An object, not two closures over the whole call's scope: an open stream holds it. */
class CallCleanUp implements CallEnding {
  readonly #options: CallCleanUpOptions;

  constructor(options: CallCleanUpOptions) {
    this.#options = options;
  }

  resolve(): void {
    this.#cleanUp().resolve();
  }

  reject(error: unknown): void {
    this.#cleanUp().reject(this.#toolsRan === undefined ? error : notToRetry(error, this.#toolsRan));
  }

  /** A server tool ran for this request: from now on a failure must not invite a retry. */
  toolRan(name: string): void {
    (this.#toolsRan ??= new Set()).add(name);
  }

  /** The server tools that ran for this request; none until one did (no set per request). */
  #toolsRan: Set<string> | undefined;

  streamFailed(error: unknown): void {
    this.#options.ending.streamFailed(error);
  }

  #cleanUp(): CallEnding {
    const { inflight, controller, res, onClose, ending, deadline } = this.#options;
    inflight.delete(controller);
    res.off('close', onClose);
    clearTimeout(deadline);
    return ending;
  }
}

/** Counts the tokens of a finished run's `finish` events for the metrics. */
function countEventTokens(events: readonly ChatStreamEvent[], metrics: GatewayMetrics, provider: string): void {
  for (const event of events) {
    if (event.type === 'finish' && event.usage !== undefined) metrics.tokens(provider, event.usage.inputTokens, event.usage.outputTokens);
  }
}

/** Token counts of a stream for the metrics (used only when metrics are on: no extra step per event otherwise). */
async function* countTokens(source: AsyncGenerator<ChatStreamEvent>, metrics: GatewayMetrics, provider: string): AsyncGenerator<ChatStreamEvent> {
  for await (const event of source) {
    if (event.type === 'finish' && event.usage !== undefined) metrics.tokens(provider, event.usage.inputTokens, event.usage.outputTokens);
    yield event;
  }
}

/** The non-streamed answer: one JSON body built from the run's events; `ending` is told once it is sent. */
function answerOnce(options: GatewayCallOptions, events: readonly ChatStreamEvent[], signal: AbortSignal, ending: CallEnding): void {
  const { req, reply, context } = options;
  // The client left after the run was over (while a mixed turn's hidden half was written):
  // its access line, and no answer to a closed connection. (The shutdown grace ending
  // then leaves a complete answer to send.)
  if (signal.aborted && gatewayAbortReason(signal) === undefined) {
    leaveOnce(options, ending, 'client disconnected before the answer was sent');
    return;
  }
  let body: unknown;
  try {
    if (context.metrics.enabled) countEventTokens(events, context.metrics, options.model.provider);
    body = options.answer(events);
  } catch (error) {
    failOnce(options, error, signal, ending);
    return;
  }
  try {
    // Serialized here (what Fastify's default serializer does for a route without a response
    // schema, JSON.stringify): a string payload skips its serializer lookup and hooks.
    // (A reply is a thenable: settled once the response is sent, at once for a string payload.)
    reply
      .header('content-type', 'application/json')
      .header('x-request-id', req.id)
      .send(JSON.stringify(body))
      .then(
        () => ending.resolve(),
        (error: unknown) => ending.reject(error),
      );
  } catch (error) {
    ending.reject(error);
  }
}

/**
 * A failed non-streamed answer: a client that went away gets its access line and no answer
 * (not a server error); the shutdown grace ending gets the `shutting_down` 503; anything
 * else is rejected.
 */
function failOnce(options: GatewayCallOptions, error: unknown, signal: AbortSignal, ending: CallEnding): void {
  const shutdown = gatewayAbortReason(signal);
  if (!signal.aborted || shutdown !== undefined) {
    ending.reject(shutdown ?? error);
    return;
  }
  leaveOnce(options, ending, 'client disconnected; upstream request aborted');
}

/** A client that went away before its non-streamed answer: its access line, the connection closed, the ending told. */
function leaveOnce(options: GatewayCallOptions, ending: CallEnding, message: string): void {
  leave(options.req, options.reply, ending, message);
}

/** A client that went away before its answer started (streamed or not): its access line, the connection closed, the ending told. */
function leave(req: FastifyRequest, reply: FastifyReply, ending: CallEnding, message: string): void {
  logClientGone(req, reply, message);
  reply.hijack();
  reply.raw.destroy();
  ending.resolve();
}

interface StreamOptions {
  req: FastifyRequest;
  reply: FastifyReply;
  events: AsyncGenerator<ChatStreamEvent>;
  wire: () => StreamWire;
  signal: AbortSignal;
  metrics: GatewayMetrics;
}

/** Streams the answer; `ending` is told once the response is over and the model stream was told. */
function stream(options: StreamOptions, ending: CallEnding): void {
  const { events, signal } = options;
  // Wait for the first event so that a failure to start (bad upstream request, unknown
  // model) is still an HTTP error the client's SDK maps to the right class. (Cut by the end
  // of the shutdown grace, it is the `shutting_down` 503.) A client that left first (a slow
  // first token, a server tool running) is what made the model stream fail: its access
  // line, as for a non-streamed answer (`failOnce`), not a server error.
  const failed = (error: unknown): void => {
    const shutdown = gatewayAbortReason(signal);
    if (signal.aborted && shutdown === undefined) leave(options.req, options.reply, ending, 'client disconnected; upstream request aborted');
    else ending.reject(shutdown ?? error);
  };
  events.next().then((first) => {
    if (!first.done && first.value.type === 'error') {
      const { error } = first.value;
      events.return(undefined).then(() => failed(error), failed);
      return;
    }
    try {
      startStream(options, first, ending);
    } catch (error) {
      ending.reject(error);
    }
  }, failed);
}

/** Sends the stream's headers and its first event, then hands the rest to an `SseStreamLoop`. */
function startStream(options: StreamOptions, first: IteratorResult<ChatStreamEvent>, ending: CallEnding): void {
  const { req, reply, events, signal, metrics } = options;
  reply.hijack();
  const res = reply.raw;
  if (metrics.enabled) {
    metrics.firstChunk(reply.elapsedTime / 1000);
    metrics.streamOpened();
    // (`on`: a response closes once; `once` would add a wrapper the stream keeps.)
    res.on('close', () => metrics.streamClosed());
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    // No `connection` header: Node sends keep-alive, or close once the gateway drains (see `ServedConnections`).
    'x-request-id': req.id,
  });
  // Held by the response for the stream's whole length: one string, not a rope.
  flattenHeaderBlock(res);
  const wire = options.wire();
  const writer = createSseWriter(res, {
    onError: (error) => req.log.info({ err: error }, 'client connection failed mid-stream'),
    ...(wire.frame === undefined ? {} : { frame: wire.frame }),
  });
  // The rest of the stream runs on reactions (see `SseStreamLoop`).
  new SseStreamLoop({ req, reply, events, wire, writer, signal, ending }).start(first);
}

/** Writes the API's error frames for `error` and ends the response; `ending` hears of the failure first (span, metrics). */
async function failStream(req: FastifyRequest, writer: SseWriter, wire: StreamWire, error: unknown, ending: CallEnding | undefined): Promise<void> {
  const gatewayError = toGatewayError(error);
  ending?.streamFailed(error);
  if (gatewayError.code === 'shutting_down') req.log.warn('stream cut: the shutdown grace period ended');
  else if (gatewayError.code === 'request_timeout') req.log.warn({ code: gatewayError.code }, 'stream cut: the request ran past limits.maxRequestDurationMs');
  else if (gatewayError.status >= 500) req.log.error({ err: error }, 'stream failed');
  else req.log.info({ err: error }, 'stream failed');
  await writer.write(wire.fail(gatewayError));
  writer.end();
}

/** Lets the model stream clean up; a failing cancel must not escape a response already sent. */
function closeEvents(req: FastifyRequest, events: AsyncGenerator<ChatStreamEvent>): Promise<void> {
  return events.return(undefined).then(
    () => undefined,
    (error: unknown) => req.log.warn({ err: error }, 'closing the model stream failed'),
  );
}

/** What `SseStreamLoop` writes and reads. */
interface SseStreamLoopOptions {
  req: FastifyRequest;
  /** For the access line of a client that leaves (`logClientGone`). */
  reply: FastifyReply;
  events: AsyncGenerator<ChatStreamEvent>;
  wire: StreamWire;
  writer: SseWriter;
  signal: AbortSignal;
  /** Told once the response is over and the model stream was told; rejected only when writing the error frames failed. */
  ending: CallEnding;
}

/**
 * Writes a stream's events from the second on, until the end, the client leaving, or a
 * failure (the API's error frames then); then lets the model stream clean up and tells the
 * ending. Reactions rather than an async function: an open stream holds this object, not a
 * suspended frame (with its registers and the awaited promise) per stream. A write is awaited only when the
 * client is behind.
 */
class SseStreamLoop {
  readonly #options: SseStreamLoopOptions;
  readonly #onNext = (next: IteratorResult<ChatStreamEvent>): void => {
    if (next.done === true) this.#end();
    else this.#write(next.value);
  };
  readonly #onDrained = (more: boolean): void => {
    if (more) this.#read();
    else this.#closed();
  };
  readonly #onFailure = (error: unknown): void => this.#failed(error);

  constructor(options: SseStreamLoopOptions) {
    this.#options = options;
  }

  /** The wire's opening frames, then the first event; the options' `ending` is told when it is over. */
  start(first: IteratorResult<ChatStreamEvent>): void {
    const { wire, writer } = this.#options;
    let written: boolean | Promise<boolean>;
    try {
      written = writer.write(wire.start());
    } catch (error) {
      this.#failed(error);
      return;
    }
    const onStarted = (more: boolean): void => {
      if (!more) this.#closed();
      else if (first.done === true) this.#failed(new Error('The model stream ended without any event.'));
      else this.#write(first.value);
    };
    if (typeof written === 'boolean') onStarted(written);
    else written.then(onStarted, this.#onFailure);
  }

  #write(event: ChatStreamEvent): void {
    const { wire, writer } = this.#options;
    let written: boolean | Promise<boolean>;
    try {
      if (event.type === 'error') {
        this.#fail(event.error);
        return;
      }
      const text = wire.textFrame?.(event);
      written = text === undefined ? writer.write(wire.push(event)) : writer.writeText(text);
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (written === true) this.#read();
    else if (written === false) this.#closed();
    else written.then(this.#onDrained, this.#onFailure);
  }

  /**
   * A write found the connection closed. A client that left (the request's signal aborted
   * with it) gets its access line here when no failure to read came first: an event can
   * arrive after the client left, and with a mixed turn the closing one comes only after the
   * hidden half is written.
   */
  #closed(): void {
    const { req, reply, signal } = this.#options;
    if (signal.aborted) logClientGone(req, reply, 'client disconnected');
    this.#finish(undefined);
  }

  #read(): void {
    try {
      // Through the gateway loop's `NEXT_THEN`: the event reaches `#onNext` in the reaction
      // that produced it, without a promise of the loop's own per token.
      void nextThen(this.#options.events, this.#onNext, this.#onFailure);
    } catch (error) {
      this.#failed(error);
    }
  }

  #end(): void {
    const { wire, writer } = this.#options;
    try {
      if (wire.finished) wire.close(writer);
      else {
        this.#fail(new Error('The model stream ended without a finish event.'));
        return;
      }
    } catch (error) {
      this.#failed(error);
      return;
    }
    this.#finish(undefined);
  }

  /**
   * A failure while reading or writing: the client leaving ends the response quietly,
   * anything else with the error frames (`last`: this is already the handling of a failure
   * to write them, and a second one is the caller's).
   */
  #failed(error: unknown, last = false): void {
    const { req, reply, writer, signal } = this.#options;
    if (signal.aborted && gatewayAbortReason(signal) === undefined) {
      logClientGone(req, reply, 'client disconnected; upstream request aborted');
      writer.end();
      this.#finish(undefined);
      return;
    }
    this.#fail(error, last);
  }

  /** Writes the error frames; failing to, the failure is handled once more as any other (see `#failed`). */
  #fail(error: unknown, last = false): void {
    const { req, writer, wire, signal, ending } = this.#options;
    // Cut by the end of the shutdown grace: whatever the model stream failed with, the client is told why.
    // (`last`: the failure to write the first failure's frames, already told.)
    failStream(req, writer, wire, gatewayAbortReason(signal) ?? error, last ? undefined : ending).then(
      () => this.#finish(undefined),
      (failure: unknown) => {
        if (last) this.#finish({ failure });
        else this.#failed(failure, true);
      },
    );
  }

  #finish(outcome: { failure: unknown } | undefined): void {
    const { req, events, ending } = this.#options;
    void closeEvents(req, events).then(() => {
      if (outcome === undefined) ending.resolve();
      else ending.reject(outcome.failure);
    });
  }
}
