import { collectStream, generateId } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
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
import { serveGatewayCall } from './serve-gateway-call.ts';
import type { StreamWire } from './serve-gateway-call.ts';

/**
 * The `POST /v1/chat/completions` handler: authenticate, rate-limit, validate, route, run
 * the tool loop, and answer as a `chat.completion` or an SSE stream of chunks. Everything
 * that can fail before the first byte is answered as an HTTP error in OpenAI's envelope.
 */
export function createChatCompletionsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return (req, reply) =>
    // Reactions rather than `await`: a streamed answer lasts seconds, and a suspended frame per level would stay for all of it.
    withRequestSpan('/v1/chat/completions', (span) => {
      const context = getContext();
      // Read now: the handler lets go of the body once parsed.
      const model = (req.body as { model?: unknown } | undefined)?.model;
      return handleChatCompletion(context, req, reply).then(
        () => {
          if (span.isRecording()) span.setAttribute('http.response.status_code', reply.raw.statusCode);
        },
        (error: unknown) => {
          // A key limited by `models` never learns other models' names from a 404.
          throw typeof model === 'string' ? context.keys.scopeModelError(context.keys.authenticate(req.headers.authorization), model, error) : error;
        },
      );
    });
}

async function handleChatCompletion(context: GatewayContext, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = context.keys.authenticate(req.headers.authorization);
  const admission = await admitRequest(context.state, principal);
  let served: Promise<void>;
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
    served = serveGatewayCall({
      context,
      req,
      reply,
      principal,
      model,
      request,
      clientTools,
      stream: parsed.stream,
      answer: async (events) => toChatCompletion(identity, await collectStream(events)),
      streamWire: () => new ChatCompletionsWire(createChunkMapper({ identity, includeUsage })),
    });
  } catch (error) {
    admission.release();
    throw error;
  }
  // Returned, not awaited (see above); the admission is released when the answer is over.
  return served.finally(() => admission.release());
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
