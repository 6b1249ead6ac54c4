import { collectStream, generateId } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';
import { withRequestSpan } from '../observability/request-span.ts';
import { toChatCompletion } from '../wire/chat-completion.ts';
import type { ResponseIdentity } from '../wire/chat-completion.ts';
import { createChunkMapper } from '../wire/chunk-mapper.ts';
import { parseChatRequest } from '../wire/parse-chat-request.ts';
import { admitRequest } from './admit-request.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';
import { serveGatewayCall } from './serve-gateway-call.ts';

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
          textFrame: (event) => mapper.textFrame(event),
          fail: (error) => [error.toEnvelope()],
          get finished() {
            return mapper.finished;
          },
          close: (writer) => writer.done(),
        };
      },
    });
  } finally {
    admission.release();
  }
}
