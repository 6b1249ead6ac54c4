import { collectStream, generateId } from '@toolwire/core';
import type { ChatModel, ChatStreamEvent } from '@toolwire/core';
import type { Principal } from '../auth/api-key-store.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';
import { runGatewayLoop } from '../loop/run-gateway-loop.ts';
import type { GatewayMetrics } from '../observability/gateway-metrics.ts';
import { withRequestSpan } from '../observability/request-span.ts';
import { toToolAuditEvent } from '../tools/audit-event.ts';
import { toChatCompletion } from '../wire/chat-completion.ts';
import type { ResponseIdentity } from '../wire/chat-completion.ts';
import { createChunkMapper } from '../wire/chunk-mapper.ts';
import { parseChatRequest } from '../wire/parse-chat-request.ts';
import type { ParsedChatRequest } from '../wire/parsed-chat-request.ts';
import { createSseWriter } from '../wire/sse-writer.ts';
import { toGatewayError } from '../wire/to-gateway-error.ts';
import { admitRequest } from './admit-request.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';
import type { PreparedChatRequest } from './prepare-chat-request.ts';

/**
 * The `POST /v1/chat/completions` handler: authenticate, rate-limit, validate, route, run
 * the tool loop, and answer as a `chat.completion` or an SSE stream of chunks. Everything
 * that can fail before the first byte is answered as an HTTP error in OpenAI's envelope.
 */
export function createChatCompletionsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return (req, reply) =>
    withRequestSpan('/v1/chat/completions', async (span) => {
      const context = getContext();
      try {
        await handleChatCompletion(context, req, reply);
      } catch (error) {
        // A key limited by `models` never learns other models' names from a 404.
        const model = (req.body as { model?: unknown } | undefined)?.model;
        throw typeof model === 'string' ? context.keys.scopeModelError(context.keys.authenticate(req.headers.authorization), model, error) : error;
      }
      if (span.isRecording()) span.setAttribute('http.response.status_code', reply.raw.statusCode);
    });
}

async function handleChatCompletion(context: GatewayContext, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = context.keys.authenticate(req.headers.authorization);
  const admission = await admitRequest(context.state, principal);
  try {
    const parsed = parseChatRequest(req.body);
    context.keys.assertModel(principal, parsed.model);
    const model = context.router.resolve(parsed.model);
    const { request, clientTools } = prepareChatRequest(context, principal, parsed);
    // Turns whose server calls the client never saw get them back, from whichever instance ran them.
    request.messages = await context.state.restoreTurns(principal.id, request.messages);
    await answer({ context, req, reply, principal, parsed, model, request, clientTools });
  } finally {
    admission.release();
  }
}

interface AnswerOptions extends PreparedChatRequest {
  context: GatewayContext;
  req: FastifyRequest;
  reply: FastifyReply;
  principal: Principal;
  parsed: ParsedChatRequest;
  model: ChatModel;
}

async function answer(options: AnswerOptions): Promise<void> {
  const { context, req, reply, principal, parsed, model, request, clientTools } = options;
  const controller = new AbortController();
  const res = reply.raw;
  // The response closing before it finished means the client went away: stop upstream and tools.
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort(new Error('The client disconnected.'));
  };
  res.once('close', onClose);
  context.inflight.add(controller);
  const identity: ResponseIdentity = { id: generateId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: parsed.model };
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
    onHiddenTurn: (turn) => {
      // The answer is already on its way: a turn Redis could not keep is logged, and the model will see the client's half only.
      context.state.rememberTurn(principal.id, turn).catch((error: unknown) => req.log.error({ err: error }, 'could not keep the hidden half of a mixed turn'));
    },
  });

  try {
    if (!parsed.stream) {
      let response;
      try {
        response = await collectStream(events);
        if (response.usage !== undefined) context.metrics.tokens(model.provider, response.usage.inputTokens, response.usage.outputTokens);
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        // The client is gone: nobody to answer, and not a server error.
        req.log.info('client disconnected; upstream request aborted');
        reply.hijack();
        res.destroy();
        return;
      }
      await reply.header('content-type', 'application/json').header('x-request-id', req.id).send(toChatCompletion(identity, response));
      return;
    }
    await stream({ req, reply, events, identity, includeUsage: parsed.includeUsage, signal: controller.signal, metrics: context.metrics, provider: model.provider });
  } finally {
    context.inflight.delete(controller);
    res.off('close', onClose);
  }
}

interface StreamOptions {
  req: FastifyRequest;
  reply: FastifyReply;
  events: AsyncGenerator<ChatStreamEvent>;
  identity: ResponseIdentity;
  includeUsage: boolean;
  signal: AbortSignal;
  metrics: GatewayMetrics;
  provider: string;
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
  metrics.firstChunk(reply.elapsedTime / 1000);
  metrics.streamOpened();
  res.once('close', () => metrics.streamClosed());
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': req.id,
  });
  const writer = createSseWriter(res, { onError: (error) => req.log.info({ err: error }, 'client connection failed mid-stream') });
  const mapper = createChunkMapper({ identity: options.identity, includeUsage: options.includeUsage });
  const fail = async (error: unknown): Promise<void> => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.status >= 500) req.log.error({ err: error }, 'stream failed');
    else req.log.info({ err: error }, 'stream failed');
    await writer.write([gatewayError.toEnvelope()]);
    writer.end();
  };
  try {
    if (first.done) throw new Error('The model stream ended without any event.');
    let event: ChatStreamEvent = first.value;
    for (;;) {
      if (event.type === 'error') {
        await fail(event.error);
        return;
      }
      if (event.type === 'finish' && event.usage !== undefined) metrics.tokens(options.provider, event.usage.inputTokens, event.usage.outputTokens);
      if (!(await writer.write(mapper.push(event)))) return;
      const next = await events.next();
      if (next.done) break;
      event = next.value;
    }
    if (mapper.finished) writer.done();
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
