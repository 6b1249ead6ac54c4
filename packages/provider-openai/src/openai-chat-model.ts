import { generateId } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import { guardStream } from '@toolwire/core/provider';
import { abortReason, mapOpenAIError } from './map-openai-error.ts';
import type { OpenAIClientContext } from './openai-client-context.ts';
import { requestOptions } from './openai-client-context.ts';
import { buildChatRequest } from './openai-chat-request.ts';
import { mapChatResponse } from './openai-chat-response.ts';
import { createChatStreamMapper } from './openai-chat-stream.ts';
import { createChatChunkReader } from './read-chat-chunks.ts';
import type { ChatChunkReader } from './read-chat-chunks.ts';
import type { OpenAIModelSettings } from './openai-model-settings.ts';
import { createStrictCallRestorer, restoreEventCall, restoreResponseCalls } from '@toolwire/openai-responses';

const newCallId = (): string => generateId('call_');

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
    return { baseURL: this.#context.baseURL, modelId: this.modelId, signal: request.signal };
  }

  /** One Chat Completions call. */
  async generate(request: ChatRequest): Promise<ChatResponse> {
    const built = this.#build(request, false);
    let completion;
    try {
      completion = await this.#context.client().chat.completions.create({ ...built.body, stream: false }, requestOptions(request));
    } catch (error) {
      throw mapOpenAIError(error, this.#errorContext(request));
    }
    const response = mapChatResponse(completion, {
      generateId: newCallId,
      ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
    });
    const restored = restoreResponseCalls(response, createStrictCallRestorer(request.tools));
    return { ...restored, warnings: [...built.warnings, ...response.warnings] };
  }

  /** One streamed Chat Completions call; throws from the first `next()` when the call cannot start. */
  stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    return guardStream(this.#stream(request), { provider: this.provider });
  }

  async *#stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    const built = this.#build(request, true);
    let response: Response;
    try {
      // The SDK makes the call (auth, headers, retries, status errors); its body is read
      // here (see `createChatChunkReader`), not through the SDK's per-chunk generator chain.
      response = await this.#context.client().chat.completions.create({ ...built.body, stream: true }, requestOptions(request)).asResponse();
    } catch (error) {
      throw mapOpenAIError(error, this.#errorContext(request));
    }
    for (const warning of built.warnings) yield { type: 'warning', warning };
    const mapper = createChatStreamMapper({
      generateId: newCallId,
      ...(request.parallelToolCalls !== undefined ? { parallelToolCalls: request.parallelToolCalls } : {}),
    });
    const restore = createStrictCallRestorer(request.tools);
    let reader: ChatChunkReader | undefined;
    try {
      reader = createChatChunkReader(response);
      for (let chunks = await reader.read(); chunks !== undefined; chunks = await reader.read()) {
        for (const chunk of chunks) for (const event of mapper.push(chunk)) yield restoreEventCall(event, restore);
      }
    } catch (error) {
      yield { type: 'error', error: mapOpenAIError(error, this.#errorContext(request)) };
      return;
    } finally {
      // Left early (the consumer stopped, or an error): the socket goes.
      reader?.cancel();
    }
    // A body cut by an abort may end quietly; say why it stopped.
    if (request.signal?.aborted === true) {
      yield { type: 'error', error: abortReason(request.signal) };
      return;
    }
    for (const event of mapper.end()) yield restoreEventCall(event, restore);
  }
}
