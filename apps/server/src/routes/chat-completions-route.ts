import { createResponseCollector, generateId } from '@toolwire/core';
import type { ChatResponse, ChatStreamEvent } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';
import { withRequestSpan } from '../observability/request-span.ts';
import { toChatCompletion } from '../wire/chat-completion.ts';
import type { ResponseIdentity } from '../wire/chat-completion.ts';
import { createChunkMapper } from '../wire/chunk-mapper.ts';
import type { ChunkMapper } from '../wire/chunk-mapper.ts';
import type { GatewayError } from '../wire/gateway-error.ts';
import type { SseWriter } from '../wire/sse-writer.ts';
import { parseChatRequest } from '../wire/parse-chat-request.ts';
import { admitRequest } from './admit-request.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';
import { answerGatewayCall } from './serve-gateway-call.ts';
import type { StreamWire } from './serve-gateway-call.ts';
import { RequestEnding } from './request-ending.ts';

/**
 * The `POST /v1/chat/completions` handler: authenticate, rate-limit, validate, route, run
 * the tool loop, and answer as a `chat.completion` or an SSE stream of chunks. Everything
 * that can fail before the first byte is answered as an HTTP error in OpenAI's envelope.
 */
export function createChatCompletionsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return (req, reply) =>
    // One promise for the whole answer, settled by a `RequestEnding` rather than awaited:
    // a streamed answer lasts seconds, and every async function and `then` on the way would
    // hold a promise, a reaction and their closures for all of it.
    withRequestSpan('/v1/chat/completions', (span) =>
      new Promise<void>((resolve, reject) => {
        const context = getContext();
        // Read now: the handler lets go of the body once parsed.
        const model = (req.body as { model?: unknown } | undefined)?.model;
        const ending = new RequestEnding({ context, req, reply, span, model: typeof model === 'string' ? model : undefined, resolve, reject });
        handleChatCompletion(context, req, reply, ending).catch((error: unknown) => ending.reject(error));
      }),
    );
}

/** Admits, prepares and starts the answer; `ending` is told when it is over (the returned promise only covers the start). */
async function handleChatCompletion(context: GatewayContext, req: FastifyRequest, reply: FastifyReply, ending: RequestEnding): Promise<void> {
  const principal = context.keys.authenticate(req.headers.authorization);
  ending.hold(await admitRequest(context.state, principal));
  try {
    const parsed = parseChatRequest(req.body);
    // The parsed request has what the answer needs: the JSON tree of the body (the whole
    // conversation) is not kept for the length of a stream.
    req.body = undefined;
    context.keys.assertModel(principal, parsed.model);
    const model = context.router.resolve(parsed.model);
    const { request, clientTools } = prepareChatRequest(context, principal, parsed);
    // Turns whose server calls the client never saw get them back, from whichever instance ran them.
    request.messages = await context.state.restoreTurns(principal.id, request.messages);
    const identity: ResponseIdentity = { id: generateId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: parsed.model };
    const { includeUsage } = parsed;
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
        answer: (events) => toChatCompletion(identity, collectEvents(events)),
        streamWire: () => new ChatCompletionsWire(createChunkMapper({ identity, includeUsage })),
      },
      ending,
    );
  } catch (error) {
    ending.release();
    throw error;
  }
}

/** The `ChatResponse` of a finished run's events (what `collectStream` makes of them as a stream). */
function collectEvents(events: readonly ChatStreamEvent[]): ChatResponse {
  const collector = createResponseCollector();
  for (const event of events) collector.add(event);
  return collector.response();
}

/** A streamed answer as `chat.completion.chunk`s, ended by `data: [DONE]`. One object per stream, no closure per member. */
class ChatCompletionsWire implements StreamWire {
  readonly #mapper: ChunkMapper;

  constructor(mapper: ChunkMapper) {
    this.#mapper = mapper;
  }

  get finished(): boolean {
    return this.#mapper.finished;
  }

  start(): readonly unknown[] {
    return [];
  }

  push(event: ChatStreamEvent): readonly unknown[] {
    return this.#mapper.push(event);
  }

  textFrame(event: ChatStreamEvent): string | undefined {
    return this.#mapper.textFrame(event);
  }

  fail(error: GatewayError): readonly unknown[] {
    return [error.toEnvelope()];
  }

  close(writer: SseWriter): void {
    writer.done();
  }
}
