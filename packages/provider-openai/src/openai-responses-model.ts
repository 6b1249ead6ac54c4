import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, ToolResult } from '@toolwire/core';
import { guardStream, headerCredentials, redactErrorSecrets } from '@toolwire/core/provider';
import {
  createResponsesStreamDecoder,
  createStrictCallRestorer,
  mapResponsesResponse,
  resolveProviderToolResult,
  restoreEventCall,
  restoreResponseCalls,
} from '@toolwire/openai-responses';
import { ensureResponsesEventStream } from './ensure-event-stream.ts';
import { abortReason, mapOpenAIError, mapResponseErrorCode } from './map-openai-error.ts';
import type { OpenAIClientContext } from './openai-client-context.ts';
import { newAnswerLimit, requestOptions, requestSecrets } from './openai-client-context.ts';
import { withRequestSecrets } from './openai-sdk-logger.ts';
import { buildResponsesRequest } from './openai-responses-request.ts';
import type { Stream } from 'openai/core/streaming';
import type { ResponseCreateParams, ResponseCreateParamsNonStreaming, ResponseCreateParamsStreaming, ResponseStreamEvent } from 'openai/resources/responses/responses';

/** What `buildResponsesRequest` gives. */
type BuiltResponsesRequest = ReturnType<typeof buildResponsesRequest>;

/**
 * Drops the conversation, instructions and tool schemas from a body the SDK is done with (its
 * call has settled: retries included; a stream is not retried once its headers are in). The
 * SDK keeps its request options (this body among them) reachable from closures that V8
 * allocates in the old generation, so until the next full collection every young one would
 * copy them and then promote them (see `forgetConversation` in the Chat Completions model).
 */
function forgetSentBody(sent: ResponseCreateParams): void {
  delete sent.input;
  delete sent.instructions;
  delete sent.tools;
}

/** A model behind OpenAI's Responses API, with provider tools such as the code interpreter. */
export class OpenAIResponsesModel implements ChatModel {
  readonly provider = 'openai';
  readonly modelId: string;
  readonly #context: OpenAIClientContext;

  constructor(options: { modelId: string; context: OpenAIClientContext }) {
    this.modelId = options.modelId;
    this.#context = options.context;
  }

  #errorContext(request: ChatRequest): Parameters<typeof mapOpenAIError>[1] {
    return { baseURL: this.#context.baseURL, modelId: this.modelId, signal: request.signal, secrets: requestSecrets(this.#context, request) };
  }

  /** One Responses call; provider-tool results come from each tool's `handleProviderOutput`. */
  async generate(request: ChatRequest): Promise<ChatResponse> {
    const built = buildResponsesRequest({ modelId: this.modelId, request });
    const sent: ResponseCreateParamsNonStreaming = { ...built.body, stream: false };
    let wire;
    try {
      wire = await withRequestSecrets(headerCredentials(request.headers), () => this.#context.client().responses.create(sent, requestOptions(request)));
    } catch (error) {
      throw mapOpenAIError(error, this.#errorContext(request));
    } finally {
      forgetSentBody(sent);
    }
    const mapped = mapResponsesResponse(wire, {
      metadataKey: 'openai',
      providerTools: built.providerTools,
      ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
    });
    const toolResults: ToolResult[] = [];
    for (const output of mapped.providerOutputs) {
      toolResults.push(
        await resolveProviderToolResult(output, {
          modelId: this.modelId,
          annotations: mapped.annotations,
          ...(request.signal ? { signal: request.signal } : {}),
        }),
      );
    }
    newAnswerLimit(this.#context)?.addResponse(mapped.response);
    const response = restoreResponseCalls(mapped.response, createStrictCallRestorer(request.tools));
    return {
      ...response,
      toolResults,
      warnings: [...built.warnings, ...response.warnings],
      message: { ...response.message, ...(toolResults.length > 0 ? { toolResults } : {}) },
    };
  }

  /** One streamed Responses call; throws from the first `next()` when the call cannot start. */
  stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    return guardStream(this.#stream(request), { provider: this.provider });
  }

  /**
   * The streamed call, opened: the SDK's event stream and what the stream needs of the built
   * request. A method of its own: the generator's frame lives as long as the stream, and would
   * otherwise keep the built request (the whole conversation and the tool schemas) with it.
   */
  async #open(request: ChatRequest): Promise<{ events: Stream<ResponseStreamEvent>; warnings: BuiltResponsesRequest['warnings']; providerTools: BuiltResponsesRequest['providerTools'] }> {
    const built = buildResponsesRequest({ modelId: this.modelId, request });
    const sent: ResponseCreateParamsStreaming = { ...built.body, stream: true };
    try {
      const { data: events, response } = await withRequestSecrets(headerCredentials(request.headers), () => this.#context.client().responses.create(sent, requestOptions(request)).withResponse());
      try {
        await ensureResponsesEventStream(response, this.#context.endGraceMs === undefined ? {} : { endGraceMs: this.#context.endGraceMs });
      } catch (error) {
        events.controller.abort();
        throw error;
      }
      return { events, warnings: built.warnings, providerTools: built.providerTools };
    } catch (error) {
      throw mapOpenAIError(error, this.#errorContext(request));
    } finally {
      forgetSentBody(sent);
    }
  }

  async *#stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    const { events, warnings, providerTools } = await this.#open(request);
    for (const warning of warnings) yield { type: 'warning', warning };
    const decoder = createResponsesStreamDecoder({
      provider: 'openai',
      metadataKey: 'openai',
      modelId: this.modelId,
      providerTools,
      answerLimit: newAnswerLimit(this.#context),
      mapFailure: (error) =>
        redactErrorSecrets(
          mapResponseErrorCode({
            code: typeof error['code'] === 'string' ? error['code'] : undefined,
            message: typeof error['message'] === 'string' ? error['message'] : 'The response failed without an error message.',
          }),
          requestSecrets(this.#context, request),
        ),
      ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
    });
    const restore = createStrictCallRestorer(request.tools);
    try {
      for await (const event of events) {
        for (const part of decoder.push(event)) {
          if (part.type !== 'provider-output') {
            yield restoreEventCall(part, restore);
            continue;
          }
          const result = await resolveProviderToolResult(part.output, {
            modelId: this.modelId,
            annotations: part.annotations,
            ...(request.signal ? { signal: request.signal } : {}),
          });
          yield { type: 'tool-result', result };
        }
        if (decoder.finished) return;
      }
    } catch (error) {
      yield { type: 'error', error: mapOpenAIError(error, this.#errorContext(request)) };
      return;
    }
    if (request.signal?.aborted === true) {
      yield { type: 'error', error: abortReason(request.signal) };
      return;
    }
    yield* decoder.end();
  }
}
