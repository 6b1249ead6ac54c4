import type { ChatModel, ChatRequest, ChatStreamEvent } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/api-key-store.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { runGatewayLoop } from '../loop/run-gateway-loop.ts';
import type { GatewayMetrics } from '../observability/gateway-metrics.ts';
import { toToolAuditEvent } from '../tools/audit-event.ts';
import type { GatewayError } from '../wire/gateway-error.ts';
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

/** Options of `serveGatewayCall`. */
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
  /** The non-streamed body from the loop's events; throws on an `error` event. */
  answer: (events: AsyncGenerator<ChatStreamEvent>) => Promise<unknown>;
  /** The streamed form, created once the stream starts. */
  streamWire: () => StreamWire;
}

/**
 * Runs the gateway's tool loop for one admitted, prepared request (turns restored) and
 * answers it in one API's wire format: hidden turns are remembered in the shared state,
 * token counts and stream timings go to the metrics, a client that goes away aborts the upstream and the tools; the shutdown grace period
 * can abort it; a failure before the first streamed byte is an HTTP error in OpenAI's
 * envelope, after it the API's error frames; nothing the upstream does escapes.
 */
export async function serveGatewayCall(options: GatewayCallOptions): Promise<void> {
  const { context, req, reply, principal } = options;
  const controller = new AbortController();
  const res = reply.raw;
  // The response closing before it finished means the client went away: stop upstream and tools.
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort(new Error('The client disconnected.'));
  };
  res.once('close', onClose);
  context.inflight.add(controller);
  const events = runGatewayLoop({
    model: options.model,
    request: options.request,
    clientTools: options.clientTools,
    registry: context.serverTools,
    principal: principal.id,
    signal: controller.signal,
    toolTimeoutMs: context.toolTimeoutMs,
    onToolAudit: (audit) => context.audit(toToolAuditEvent(audit, { principal: principal.id, requestId: req.id })),
    maxSteps: context.maxSteps,
    stream: options.stream,
    onHiddenTurn: (turn) => {
      // The answer is already on its way: a turn the state could not keep is logged, and the model will see the client's half only.
      context.state.rememberTurn(principal.id, turn).catch((error: unknown) => req.log.error({ err: error }, 'could not keep the hidden half of a mixed turn'));
    },
  });
  const provider = options.model.provider;
  // Token counts for the metrics, whichever way the answer goes out (no extra step per event when metrics are off).
  const counted = async function* (source: AsyncGenerator<ChatStreamEvent>): AsyncGenerator<ChatStreamEvent> {
    for await (const event of source) {
      if (event.type === 'finish' && event.usage !== undefined) context.metrics.tokens(provider, event.usage.inputTokens, event.usage.outputTokens);
      yield event;
    }
  };

  try {
    if (!options.stream) {
      let body: unknown;
      try {
        body = await options.answer(context.metrics.enabled ? counted(events) : events);
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        // The client is gone: nobody to answer, and not a server error.
        req.log.info('client disconnected; upstream request aborted');
        reply.hijack();
        res.destroy();
        return;
      }
      await reply.header('content-type', 'application/json').header('x-request-id', req.id).send(body);
      return;
    }
    await stream({ req, reply, events: context.metrics.enabled ? counted(events) : events, wire: options.streamWire, signal: controller.signal, metrics: context.metrics });
  } finally {
    context.inflight.delete(controller);
    res.off('close', onClose);
  }
}

interface StreamOptions {
  req: FastifyRequest;
  reply: FastifyReply;
  events: AsyncGenerator<ChatStreamEvent>;
  wire: () => StreamWire;
  signal: AbortSignal;
  metrics: GatewayMetrics;
}

async function stream(options: StreamOptions): Promise<void> {
  const { req, reply, events, signal } = options;
  // Wait for the first event so that a failure to start (bad upstream request, unknown
  // model) is still an HTTP error the client's SDK maps to the right class.
  const first = await events.next();
  if (!first.done && first.value.type === 'error') {
    await events.return(undefined);
    throw first.value.error;
  }

  reply.hijack();
  const res = reply.raw;
  const { metrics } = options;
  if (metrics.enabled) {
    metrics.firstChunk(reply.elapsedTime / 1000);
    metrics.streamOpened();
    res.once('close', () => metrics.streamClosed());
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': req.id,
  });
  const wire = options.wire();
  const writer = createSseWriter(res, {
    onError: (error) => req.log.info({ err: error }, 'client connection failed mid-stream'),
    ...(wire.frame === undefined ? {} : { frame: wire.frame }),
  });
  const fail = async (error: unknown): Promise<void> => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.status >= 500) req.log.error({ err: error }, 'stream failed');
    else req.log.info({ err: error }, 'stream failed');
    await writer.write(wire.fail(gatewayError));
    writer.end();
  };
  try {
    if (!(await writer.write(wire.start()))) return;
    if (first.done) throw new Error('The model stream ended without any event.');
    let event: ChatStreamEvent = first.value;
    for (;;) {
      if (event.type === 'error') {
        await fail(event.error);
        return;
      }
      // Awaited only when the client is behind (a promise): one await less per token.
      const text = wire.textFrame?.(event);
      const written = text === undefined ? writer.write(wire.push(event)) : writer.writeText(text);
      if (written !== true && !(await written)) return;
      const next = await events.next();
      if (next.done) break;
      event = next.value;
    }
    if (wire.finished) wire.close(writer);
    else await fail(new Error('The model stream ended without a finish event.'));
  } catch (error) {
    if (signal.aborted) {
      req.log.info('client disconnected; upstream request aborted');
      writer.end();
      return;
    }
    await fail(error);
  } finally {
    // Cleanup of the upstream (a failing cancel) must not escape a response already sent.
    await events.return(undefined).catch((error: unknown) => req.log.warn({ err: error }, 'closing the model stream failed'));
  }
}
