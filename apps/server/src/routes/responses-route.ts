import { generateId } from '@toolwire/core';
import type { ChatStreamEvent, Message } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/api-key-store.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import { parseResponsesRequest } from '../wire/parse-responses-request.ts';
import type { ParsedResponsesRequest } from '../wire/parsed-responses-request.ts';
import { createResponsesEventMapper } from '../wire/responses-event-mapper.ts';
import type { ClientToolShape, ResponsesEventMapper } from '../wire/responses-event-mapper.ts';
import { toOutputMessage } from '../wire/responses-output-message.ts';
import type { WireResponse } from '../wire/responses-wire-types.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';
import { withRequestSpan } from '../observability/request-span.ts';
import { admitRequest } from './admit-request.ts';
import { RequestEnding } from './request-ending.ts';
import { answerGatewayCall } from './serve-gateway-call.ts';

/**
 * The `POST /v1/responses` handler: the same admission, routing, tool rule, loop and
 * no-crash handling as chat completions (`answerGatewayCall`), answered as a Response object
 * or a stream of Responses events. Everything that can fail before the first byte is an HTTP
 * error in OpenAI's envelope; a failure after it is an `error` event and `response.failed`.
 */
export function createResponsesHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return (req, reply) =>
    // One promise for the whole answer, settled by a `RequestEnding` (as on chat completions).
    withRequestSpan('/v1/responses', (span) =>
      new Promise<void>((resolve, reject) => {
        const context = getContext();
        // Read now: the handler lets go of the body once parsed.
        const model = (req.body as { model?: unknown } | undefined)?.model;
        const ending = new RequestEnding({ context, req, reply, span, model: typeof model === 'string' ? model : undefined, resolve, reject });
        handleResponses(context, req, reply, ending).catch((error: unknown) => ending.reject(error));
      }),
    );
}

/**
 * The `GET /v1/responses/{id}` handler: a response this key stored (`store` not false), as
 * it was sent; 404 for any other id.
 */
export function createRetrieveResponseHandler(getContext: () => GatewayContext): (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => Promise<void> {
  return async (req, reply) => {
    const context = getContext();
    const principal = context.keys.authenticate(req.headers.authorization);
    const response = context.responses.get(principal.id, req.params.id);
    if (response === undefined) {
      throw new GatewayError({
        status: 404,
        type: 'not_found_error',
        message: `Response with id '${req.params.id}' not found. This gateway keeps responses stored (store not false) for one hour, for the API key that made them.`,
        param: 'response_id',
        code: 'response_not_found',
        retryable: false,
      });
    }
    await reply.header('content-type', 'application/json').header('x-request-id', req.id).send(response);
  };
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

/** Responses events go out named, as OpenAI sends them: `event: <type>` then the data. */
function responsesSseFrame(payload: unknown): string {
  const type = (payload as { type: string }).type;
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Admits, prepares and starts the answer; `ending` is told when it is over (the returned promise only covers the start). */
async function handleResponses(context: GatewayContext, req: FastifyRequest, reply: FastifyReply, ending: RequestEnding): Promise<void> {
  const principal = context.keys.authenticate(req.headers.authorization);
  ending.hold(await admitRequest(context.state, principal));
  try {
    await answerResponses(context, req, reply, principal, ending);
  } catch (error) {
    ending.release();
    throw error;
  }
}

async function answerResponses(context: GatewayContext, req: FastifyRequest, reply: FastifyReply, principal: Principal, ending: RequestEnding): Promise<void> {
  const parsed = parseResponsesRequest(req.body, { history: context.responses.historyOf(principal.id) });
  // The parsed request has what the answer needs: the JSON tree of the body is not kept for the length of a stream.
  req.body = undefined;
  context.keys.assertModel(principal, parsed.model);
  const model = context.router.resolve(parsed.model);
  const { request, clientTools } = prepareChatRequest(context, principal, { ...parsed, includeUsage: false, wire: 'responses' });
  // Turns whose server calls the client never saw get them back, from whichever instance ran them.
  request.messages = await context.state.restoreTurns(principal.id, request.messages);
  const mapper = createResponsesEventMapper({
    identity: { id: generateId('resp_'), createdAt: Math.floor(Date.now() / 1000), model: parsed.model, echo: parsed.echo },
    tools: clientToolShapes(parsed, clientTools),
  });
  // What a stored response continues: its input (instructions lead one request only) and its output.
  const store = (response: WireResponse): void => {
    if (!parsed.echo.store || response.status === 'failed') return;
    const input = parsed.echo.instructions === null || parsed.echo.instructions === '' ? parsed.messages : parsed.messages.slice(1);
    const conversation: Message[] = [...input, toOutputMessage(response.output)];
    context.responses.save(principal.id, { id: response.id, conversation, response });
  };
  // The ending releases the admission when the answer is over.
  answerGatewayCall(
    {
      context,
      req,
      reply,
      principal,
      model,
      request,
      clientTools,
      stream: parsed.stream,
      answer: (events) => {
        const response = collect(events, mapper);
        store(response);
        return response;
      },
      streamWire: () => ({
        start: () => mapper.start(),
        push: (event) => mapper.push(event),
        fail: (error) => mapper.fail({ code: error.code ?? error.type, message: error.message, param: error.param }),
        get finished() {
          return mapper.finished;
        },
        close: (writer) => {
          store(mapper.response());
          // Responses streams end with their last event: no `[DONE]`.
          writer.end();
        },
        frame: responsesSseFrame,
      }),
    },
    ending,
  );
}

/** A non-streamed answer: the events through the same mapper, its final response. */
function collect(events: readonly ChatStreamEvent[], mapper: ResponsesEventMapper): WireResponse {
  mapper.start();
  for (const event of events) {
    if (event.type === 'error') throw event.error;
    mapper.push(event);
  }
  if (!mapper.finished) throw new Error('The model stream ended without a finish event.');
  return mapper.response();
}
