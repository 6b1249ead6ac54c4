import { generateId } from '@toolwire/core';
import type { ChatStreamEvent, Message } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/api-key-store.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { runGatewayLoop } from '../loop/run-gateway-loop.ts';
import { toToolAuditEvent } from '../tools/audit-event.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import { parseResponsesRequest } from '../wire/parse-responses-request.ts';
import type { ParsedResponsesRequest } from '../wire/parsed-responses-request.ts';
import { createResponsesEventMapper } from '../wire/responses-event-mapper.ts';
import type { ClientToolShape, ResponsesEventMapper } from '../wire/responses-event-mapper.ts';
import { toOutputMessage } from '../wire/responses-output-message.ts';
import type { WireResponse } from '../wire/responses-wire-types.ts';
import { createSseWriter } from '../wire/sse-writer.ts';
import { toGatewayError } from '../wire/to-gateway-error.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';

/**
 * The `POST /v1/responses` handler: the same admission, routing, tool rule, loop and
 * no-crash handling as chat completions, answered as a Response object or a stream of
 * Responses events. Everything that can fail before the first byte is an HTTP error in
 * OpenAI's envelope; a failure after it is an `error` event and `response.failed`.
 */
export function createResponsesHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return (req, reply) => handleResponses(getContext(), req, reply);
}

function admit(context: GatewayContext, req: FastifyRequest): Principal {
  const principal = context.keys.authenticate(req.headers.authorization);
  if (principal.requestsPerMinute !== undefined) {
    const decision = context.rateLimiter.take(principal.id, principal.requestsPerMinute);
    if (!decision.allowed) {
      throw new GatewayError({
        status: 429,
        type: 'rate_limit_error',
        message: `Rate limit reached for the API key '${principal.id}' (${principal.requestsPerMinute} requests per minute). Retry after ${decision.retryAfterSeconds} s.`,
        code: 'rate_limit_exceeded',
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
  }
  return principal;
}

/** How each of the client's tools' calls go back (function with its namespace, or custom). */
function clientToolShapes(parsed: ParsedResponsesRequest, clientTools: ReadonlySet<string>): Map<string, ClientToolShape> {
  const shapes = new Map<string, ClientToolShape>();
  for (const tool of parsed.tools) {
    if (!clientTools.has(tool.spec.name)) continue;
    shapes.set(tool.spec.name, tool.namespace === undefined ? { kind: tool.kind } : { kind: tool.kind, namespace: tool.namespace });
  }
  return shapes;
}

async function handleResponses(context: GatewayContext, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = admit(context, req);
  const parsed = parseResponsesRequest(req.body, { history: context.responses.historyOf(principal.id) });
  context.keys.assertModel(principal, parsed.model);
  const model = context.router.resolve(parsed.model);
  const { request, clientTools } = prepareChatRequest(context, principal, { ...parsed, includeUsage: false, wire: 'responses' });

  const controller = new AbortController();
  const res = reply.raw;
  // The response closing before it finished means the client went away: stop upstream and tools.
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort(new Error('The client disconnected.'));
  };
  res.once('close', onClose);
  context.inflight.add(controller);
  const mapper = createResponsesEventMapper({
    identity: { id: generateId('resp_'), createdAt: Math.floor(Date.now() / 1000), model: parsed.model, echo: parsed.echo },
    tools: clientToolShapes(parsed, clientTools),
  });
  const events = runGatewayLoop({
    model,
    request,
    clientTools,
    registry: context.serverTools,
    principal: principal.id,
    signal: controller.signal,
    toolTimeoutMs: context.toolTimeoutMs,
    onToolAudit: (audit) => context.audit(toToolAuditEvent(audit, { principal: principal.id, requestId: req.id })),
    maxSteps: context.maxSteps,
    stream: parsed.stream,
    onHiddenTurn: (turn) => context.hiddenTurns.remember(principal.id, turn),
  });
  // What a stored response continues: its input (instructions lead one request only) and its output.
  const store = (response: WireResponse): void => {
    if (!parsed.echo.store || response.status === 'failed') return;
    const input = parsed.echo.instructions === null || parsed.echo.instructions === '' ? parsed.messages : parsed.messages.slice(1);
    const conversation: Message[] = [...input, toOutputMessage(response.output)];
    context.responses.save(principal.id, { id: response.id, conversation, items: response.output });
  };

  try {
    if (!parsed.stream) {
      let response: WireResponse;
      try {
        response = await collect(events, mapper);
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        // The client is gone: nobody to answer, and not a server error.
        req.log.info('client disconnected; upstream request aborted');
        reply.hijack();
        res.destroy();
        return;
      }
      store(response);
      await reply.header('content-type', 'application/json').header('x-request-id', req.id).send(response);
      return;
    }
    await stream({ req, reply, events, mapper, signal: controller.signal, onCompleted: store });
  } finally {
    context.inflight.delete(controller);
    res.off('close', onClose);
  }
}

/** A non-streamed answer: the events through the same mapper, its final response. */
async function collect(events: AsyncGenerator<ChatStreamEvent>, mapper: ResponsesEventMapper): Promise<WireResponse> {
  mapper.start();
  for await (const event of events) {
    if (event.type === 'error') throw event.error;
    mapper.push(event);
  }
  if (!mapper.finished) throw new Error('The model stream ended without a finish event.');
  return mapper.response();
}

/** Responses events go out named, as OpenAI sends them: `event: <type>` then the data. */
function responsesSseFrame(payload: unknown): string {
  const type = (payload as { type: string }).type;
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

interface StreamOptions {
  req: FastifyRequest;
  reply: FastifyReply;
  events: AsyncGenerator<ChatStreamEvent>;
  mapper: ResponsesEventMapper;
  signal: AbortSignal;
  onCompleted: (response: WireResponse) => void;
}

async function stream(options: StreamOptions): Promise<void> {
  const { req, reply, events, mapper, signal } = options;
  // Wait for the first event so that a failure to start (bad upstream request, unknown
  // model) is still an HTTP error the client's SDK maps to the right class.
  const first = await events.next();
  if (!first.done && first.value.type === 'error') {
    await events.return(undefined);
    throw first.value.error;
  }

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': req.id,
  });
  const writer = createSseWriter(res, { frame: responsesSseFrame });
  const fail = async (error: unknown): Promise<void> => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.status >= 500) req.log.error({ err: error }, 'stream failed');
    else req.log.info({ err: error }, 'stream failed');
    await writer.write(mapper.fail({ code: gatewayError.code ?? gatewayError.type, message: gatewayError.message, param: gatewayError.param }));
    writer.end();
  };
  try {
    if (!(await writer.write(mapper.start()))) return;
    if (first.done) throw new Error('The model stream ended without any event.');
    let event: ChatStreamEvent = first.value;
    for (;;) {
      if (event.type === 'error') {
        await fail(event.error);
        return;
      }
      if (!(await writer.write(mapper.push(event)))) return;
      const next = await events.next();
      if (next.done) break;
      event = next.value;
    }
    if (!mapper.finished) {
      await fail(new Error('The model stream ended without a finish event.'));
      return;
    }
    options.onCompleted(mapper.response());
    // Responses streams end with their last event: no `[DONE]`.
    writer.end();
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
