import { InvalidRequestError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, Warning } from '@toolwire/core';
import { guardStream } from '@toolwire/core/provider';
import { withTextToolCalling } from '@toolwire/extract';
import { TOOLS_UNSUPPORTED } from './map-ollama-error.ts';
import { getModelCapabilities, hasNativeTools, markToolsUnsupported } from './model-capabilities.ts';
import { newAnswerLimit } from './ollama-client.ts';
import type { OllamaModelConfig } from './ollama-model-config.ts';
import { createNativeModel } from './ollama-native-model.ts';
import { createTextOnlyModel } from './ollama-text-model.ts';

/** How one request reaches the model. */
type Mode = 'native' | 'text';

/**
 * The `ChatModel` that `createOllama().chat()` returns: native tools when the model has
 * them, text tool calling (`withTextToolCalling`, call syntax) otherwise, chosen per
 * `settings.textTools` and the model's `/api/show` capabilities.
 */
export function createOllamaChatModel(config: OllamaModelConfig): ChatModel {
  const native = createNativeModel(config);
  let text: ChatModel | undefined;
  // Built on first use, so a model that never needs text tools never needs the wrapper.
  const textModel = (): ChatModel => (text ??= withTextToolCalling(createTextOnlyModel(config), { format: 'call' }));

  async function modeOf(request: ChatRequest): Promise<Mode> {
    const textTools = config.settings.textTools ?? 'auto';
    if (textTools === true) return 'text';
    if (textTools === false || !involvesTools(request)) return 'native';
    const capabilities = await getModelCapabilities(config.connection, config.modelId, undefined, request.signal);
    return hasNativeTools(capabilities) ? 'native' : 'text';
  }

  function switchWarning(): Warning {
    return {
      type: 'other',
      message: `Ollama says "${config.modelId}" does not support tools; using text tool calling instead.`,
    };
  }

  function canSwitch(error: unknown): boolean {
    return (
      (config.settings.textTools ?? 'auto') === 'auto' &&
      InvalidRequestError.isInstance(error) &&
      error.code === TOOLS_UNSUPPORTED
    );
  }

  async function generate(request: ChatRequest): Promise<ChatResponse> {
    const response = await generateUnbounded(request);
    // The body was held whole (bounded by `maxMessageBytes`): this keeps what is passed on within the answer's bounds.
    newAnswerLimit(config.connection)?.addResponse(response);
    return response;
  }

  async function generateUnbounded(request: ChatRequest): Promise<ChatResponse> {
    if ((await modeOf(request)) === 'text') return textModel().generate(request);
    try {
      return await native.generate(request);
    } catch (error) {
      if (!canSwitch(error)) throw error;
      markToolsUnsupported(config.connection, config.modelId);
      const response = await textModel().generate(request);
      return { ...response, warnings: [switchWarning(), ...response.warnings] };
    }
  }

  async function* streamEvents(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    if ((await modeOf(request)) === 'text') {
      yield* textModel().stream(request);
      return;
    }
    const events = native.stream(request)[Symbol.asyncIterator]();
    let first: IteratorResult<ChatStreamEvent>;
    try {
      first = await events.next();
    } catch (error) {
      if (!canSwitch(error)) throw error;
      markToolsUnsupported(config.connection, config.modelId);
      yield { type: 'warning', warning: switchWarning() };
      yield* textModel().stream(request);
      return;
    }
    // Closing `events` when the caller stops early aborts the HTTP stream.
    try {
      for (let next = first; next.done !== true; next = await events.next()) yield next.value;
    } finally {
      await events.return?.(undefined);
    }
  }

  return {
    provider: 'ollama',
    modelId: config.modelId,
    generate,
    stream: (request) => guardStream(streamEvents(request), { provider: 'ollama' }),
  };
}

/** Tools offered, or a history with calls or results (which only the chosen mode renders right). */
function involvesTools(request: ChatRequest): boolean {
  if ((request.tools?.length ?? 0) > 0) return true;
  return request.messages.some(
    (message) => message.role === 'tool' || (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0),
  );
}
