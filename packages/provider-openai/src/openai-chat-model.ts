import { generateId, partitionTools } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import type { ChatCompletionCreateParams, ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { guardStream, headerCredentials } from '@toolwire/core/provider';
import { mapOpenAIError } from './map-openai-error.ts';
import type { OpenAIClientContext } from './openai-client-context.ts';
import { newAnswerLimit, requestOptions, requestSecrets } from './openai-client-context.ts';
import { withRequestSecrets } from './openai-sdk-logger.ts';
import { buildChatRequest } from './openai-chat-request.ts';
import { mapChatResponse } from './openai-chat-response.ts';
import { createChatStreamMapper } from './openai-chat-stream.ts';
import { createChatEventStream } from './openai-chat-event-stream.ts';
import { readChatCompletion } from './read-chat-completion.ts';
import { ensureEventStream } from './ensure-event-stream.ts';
import type { OpenAIModelSettings } from './openai-model-settings.ts';
import { createStrictCallRestorer, restoreEventCall, restoreResponseCalls } from '@toolwire/openai-responses';
import type { StrictCallRestorer } from '@toolwire/openai-responses';

const newCallId = (): string => generateId('call_');

/**
 * The function tools a call written as text may name (see `readTextCall`): those offered,
 * unless `toolChoice` is `'none'` or the answer was asked for as JSON.
 */
function textCallOption(request: ChatRequest): { textCallTools?: readonly { name: string }[] } {
  // An answer asked for as JSON is data, whatever it looks like.
  if (request.toolChoice === 'none' || request.responseFormat?.type === 'json') return {};
  const { functionTools } = partitionTools(request.tools, 'openai');
  if (functionTools.length === 0) return {};
  const choice = request.toolChoice;
  return { textCallTools: typeof choice === 'object' ? functionTools.filter((tool) => tool.name === choice.name) : functionTools };
}

/**
 * Drops the conversation and tool schemas from a body the SDK is done with: its call has
 * settled (retries included; a stream is not retried once its headers are in), and the body
 * is read here, not by the SDK. The SDK keeps its request options (this body among them)
 * reachable from closures that V8 allocates in the old generation
 * (`promise.withResponse = async () => …`), so until the next full collection every young
 * one would copy them and then promote them: with an 8-message, 16 KB conversation, ~16 KB
 * promoted per call (see `forgetSentBody` for the Responses API).
 */
function forgetConversation(sent: ChatCompletionCreateParams): void {
  sent.messages = [];
  delete sent.tools;
}

/** A model behind the Chat Completions API (OpenAI, vLLM, LM Studio, llama.cpp, Ollama's `/v1`). */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai';
  readonly modelId: string;
  readonly #context: OpenAIClientContext;
  readonly #settings: OpenAIModelSettings;

  constructor(options: { modelId: string; context: OpenAIClientContext; settings?: OpenAIModelSettings }) {
    this.modelId = options.modelId;
    this.#context = options.context;
    this.#settings = options.settings ?? {};
  }

  #build(request: ChatRequest, stream: boolean): ReturnType<typeof buildChatRequest> {
    return buildChatRequest({
      modelId: this.modelId,
      request,
      stream,
      ...(this.#settings.systemMessageMode !== undefined ? { systemMessageMode: this.#settings.systemMessageMode } : {}),
      maxTokensParameter: this.#settings.maxTokensParameter ?? (this.#context.isOpenAI ? 'max_completion_tokens' : 'max_tokens'),
    });
  }

  #errorContext(request: ChatRequest): Parameters<typeof mapOpenAIError>[1] {
    return { baseURL: this.#context.baseURL, modelId: this.modelId, signal: request.signal, secrets: requestSecrets(this.#context, request) };
  }

  /**
   * The SDK's call for `body`, its response once the headers are in. A method of its own: a
   * closure over the caller's `built` (the whole conversation, mapped) would share its
   * scope with the stream's `restore` closure and stay alive for the stream's whole length.
   */
  #call(request: ChatRequest, params: ChatCompletionCreateParamsNonStreaming | ChatCompletionCreateParamsStreaming): PromiseLike<Response> {
    const completions = this.#context.client().chat.completions;
    const options = requestOptions(request);
    // The same call on both sides: the test narrows `params` to one of the SDK's overloads.
    // The request's own credentials also out of the SDK's log lines for this call.
    return withRequestSecrets(headerCredentials(request.headers), () =>
      params.stream === true ? completions.create(params, options).asResponse() : completions.create(params, options).asResponse(),
    );
  }

  /** One Chat Completions call. */
  async generate(request: ChatRequest): Promise<ChatResponse> {
    const built = this.#build(request, false);
    const sent: ChatCompletionCreateParamsNonStreaming = { ...built.body, stream: false };
    let completion;
    try {
      // The SDK makes the call (auth, headers, retries, status errors); the body is read here (see `readChatCompletion`).
      const response = await this.#call(request, sent);
      completion = await readChatCompletion(response, this.#context.endGraceMs === undefined ? {} : { endGraceMs: this.#context.endGraceMs });
    } catch (error) {
      throw mapOpenAIError(error, this.#errorContext(request));
    } finally {
      forgetConversation(sent);
    }
    const response = mapChatResponse(completion, {
      generateId: newCallId,
      ...textCallOption(request),
      ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
    });
    // The body is held whole by now (bounded by `maxMessageBytes`): this keeps what is passed on within the answer's bounds.
    newAnswerLimit(this.#context)?.addResponse(response);
    const restored = restoreResponseCalls(response, createStrictCallRestorer(request.tools));
    return { ...restored, warnings: [...built.warnings, ...response.warnings] };
  }

  /** One streamed Chat Completions call; throws from the first `next()` when the call cannot start. */
  stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    return guardStream(this.#stream(request), { provider: this.provider });
  }

  #stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    return createChatEventStream({
      open: async () => {
        const built = this.#build(request, true);
        const sent: ChatCompletionCreateParamsStreaming = { ...built.body, stream: true };
        let response: Response;
        try {
          // The SDK makes the call (auth, headers, retries, status errors); its body is read
          // here (see `createChatChunkReader`), not through the SDK's per-chunk generator chain.
          response = await this.#call(request, sent);
          await ensureEventStream(response, this.#context.endGraceMs === undefined ? {} : { endGraceMs: this.#context.endGraceMs });
        } catch (error) {
          throw mapOpenAIError(error, this.#errorContext(request));
        } finally {
          // Once the headers are in, the SDK sends nothing more for this call: the stream's
          // length would otherwise decide how long the conversation sits in the old generation.
          forgetConversation(sent);
        }
        const restore = eventRestorer(createStrictCallRestorer(request.tools));
        return {
          response,
          before: built.warnings.map((warning): ChatStreamEvent => ({ type: 'warning', warning })),
          mapper: createChatStreamMapper({
            generateId: newCallId,
            answerLimit: newAnswerLimit(this.#context),
            ...textCallOption(request),
            ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
          }),
          restore,
        };
      },
      mapError: (error) => mapOpenAIError(error, this.#errorContext(request)),
      signal: request.signal,
      ...(this.#context.endGraceMs === undefined ? {} : { endGraceMs: this.#context.endGraceMs }),
    });
  }
}

const keepEvent = (event: ChatStreamEvent): ChatStreamEvent => event;
const keepCall = createStrictCallRestorer(undefined);

/**
 * A stream's `restore` for its call restorer: without strict tools one function for every
 * stream (no closure per stream, held for its whole length). Made here, not in `open`: a
 * closure there would share that scope (the request, the SDK's response) with the stream.
 */
function eventRestorer(restore: StrictCallRestorer): (event: ChatStreamEvent) => ChatStreamEvent {
  return restore === keepCall ? keepEvent : (event) => restoreEventCall(event, restore);
}
