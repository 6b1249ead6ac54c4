import { collectStream, generateId } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';
import { toChatCompletion } from '../wire/chat-completion.ts';
import type { ResponseIdentity } from '../wire/chat-completion.ts';
import { createChunkMapper } from '../wire/chunk-mapper.ts';
import { parseChatRequest } from '../wire/parse-chat-request.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';
import { admitRequest, createModelRouteHandler, serveGatewayCall } from './serve-gateway-call.ts';

/**
 * The `POST /v1/chat/completions` handler: authenticate, rate-limit, validate, route, run
 * the tool loop, and answer as a `chat.completion` or an SSE stream of chunks. Everything
 * that can fail before the first byte is answered as an HTTP error in OpenAI's envelope.
 */
export function createChatCompletionsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return createModelRouteHandler(getContext, handleChatCompletion);
}

async function handleChatCompletion(context: GatewayContext, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = admitRequest(context, req);
  const parsed = parseChatRequest(req.body);
  context.keys.assertModel(principal, parsed.model);
  const model = context.router.resolve(parsed.model);
  const { request, clientTools } = prepareChatRequest(context, principal, parsed);
  const identity: ResponseIdentity = { id: generateId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: parsed.model };
  await serveGatewayCall({
    context,
    req,
    reply,
    principal,
    model,
    request,
    clientTools,
    stream: parsed.stream,
    answer: async (events) => toChatCompletion(identity, await collectStream(events)),
    streamWire: () => {
      const mapper = createChunkMapper({ identity, includeUsage: parsed.includeUsage });
      return {
        start: () => [],
        push: (event) => mapper.push(event),
        fail: (error) => [error.toEnvelope()],
        get finished() {
          return mapper.finished;
        },
        close: (writer) => writer.done(),
      };
    },
  });
}
