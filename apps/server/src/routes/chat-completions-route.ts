import { collectStream, generateId } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import type { Span } from '@opentelemetry/api';
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
import type { Admission } from './admit-request.ts';
import { prepareChatRequest } from './prepare-chat-request.ts';
import { answerGatewayCall } from './serve-gateway-call.ts';
import type { CallEnding, StreamWire } from './serve-gateway-call.ts';

/**
 * The `POST /v1/chat/completions` handler: authenticate, rate-limit, validate, route, run
 * the tool loop, and answer as a `chat.completion` or an SSE stream of chunks. Everything
 * that can fail before the first byte is answered as an HTTP error in OpenAI's envelope.
 */
export function createChatCompletionsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return (req, reply) =>
    // One promise for the whole answer, settled by `ChatCompletionEnding` rather than awaited:
    // a streamed answer lasts seconds, and every async function and `then` on the way would
    // hold a promise, a reaction and their closures for all of it.
    withRequestSpan('/v1/chat/completions', (span) =>
      new Promise<void>((resolve, reject) => {
        const context = getContext();
        // Read now: the handler lets go of the body once parsed.
        const model = (req.body as { model?: unknown } | undefined)?.model;
        const ending = new ChatCompletionEnding({ context, req, reply, span, model: typeof model === 'string' ? model : undefined, resolve, reject });
        handleChatCompletion(context, req, reply, ending).catch((error: unknown) => ending.reject(error));
      }),
    );
}

/** What `ChatCompletionEnding` needs at the end. */
interface ChatCompletionEndingOptions {
  context: GatewayContext;
  req: FastifyRequest;
  reply: FastifyReply;
  span: Span;
  /** The model the client asked for, when it named one. */
  model: string | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * How a chat completion's handling ends, whenever that is: the admission released (once),
 * the span's status code, the handler's promise settled, a failure scoped to the key's
 * models. One object an open stream holds, rather than closures over each step's scope.
 */
class ChatCompletionEnding implements CallEnding {
  readonly #options: ChatCompletionEndingOptions;
  #admission: Admission | undefined;

  constructor(options: ChatCompletionEndingOptions) {
    this.#options = options;
  }

  /** The admission this ending releases, once the answer (or its failure) is over. */
  hold(admission: Admission): void {
    this.#admission = admission;
  }

  /** Releases the admission, at most once. */
  release(): void {
    const admission = this.#admission;
    this.#admission = undefined;
    admission?.release();
  }

  resolve(): void {
    const { span, reply, resolve } = this.#options;
    this.release();
    if (span.isRecording()) span.setAttribute('http.response.status_code', reply.raw.statusCode);
    resolve();
  }

  reject(error: unknown): void {
    const { context, req, model, reject } = this.#options;
    this.release();
    // A key limited by `models` never learns other models' names from a 404.
    reject(model === undefined ? error : scopedError(context, req, model, error));
  }
}

/** `scopeModelError` for the request's key (an unauthenticated request keeps its 401). */
function scopedError(context: GatewayContext, req: FastifyRequest, model: string, error: unknown): unknown {
  try {
    return context.keys.scopeModelError(context.keys.authenticate(req.headers.authorization), model, error);
  } catch (failure) {
    return failure;
  }
}

/** Admits, prepares and starts the answer; `ending` is told when it is over (the returned promise only covers the start). */
async function handleChatCompletion(context: GatewayContext, req: FastifyRequest, reply: FastifyReply, ending: ChatCompletionEnding): Promise<void> {
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
        answer: async (events) => toChatCompletion(identity, await collectStream(events)),
        streamWire: () => new ChatCompletionsWire(createChunkMapper({ identity, includeUsage })),
      },
      ending,
    );
  } catch (error) {
    ending.release();
    throw error;
  }
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
