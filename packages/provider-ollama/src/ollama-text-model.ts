import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import { buildChatBody } from './ollama-chat-request.ts';
import { buildResponse, mapFinishReason, mapUsage } from './ollama-chat-response.ts';
import { chatOnce, chatStream, newAnswerLimit } from './ollama-client.ts';
import type { OllamaModelConfig } from './ollama-model-config.ts';
import { streamTurn } from './ollama-chat-stream.ts';

/**
 * The model as a plain text model: /api/chat without tools. `withTextToolCalling` from
 * `@toolwire/extract` wraps it for models without native tools; the wrapper puts the
 * tools into the prompt and finds the calls in the text, so any `tools` it leaves in a
 * request are not sent.
 */
export function createTextOnlyModel(config: OllamaModelConfig): ChatModel {
  return {
    provider: 'ollama',
    modelId: config.modelId,
    generate: (request) => generateText(config, request),
    stream: (request) => streamText(config, request),
  };
}

function call(config: OllamaModelConfig, request: ChatRequest) {
  return { signal: request.signal, headers: request.headers, modelId: config.modelId };
}

async function generateText(config: OllamaModelConfig, request: ChatRequest): Promise<ChatResponse> {
  const body = buildChatBody({ modelId: config.modelId, request, settings: config.settings });
  const raw = await chatOnce(config.connection, body, call(config, request));
  return buildResponse({
    text: raw.message?.content ?? '',
    reasoning: raw.message?.thinking ?? '',
    toolCalls: [],
    doneReason: raw.done_reason,
    usage: mapUsage(raw),
    modelId: raw.model,
    warnings: [],
  });
}

async function* streamText(config: OllamaModelConfig, request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
  const body = buildChatBody({ modelId: config.modelId, request, settings: config.settings });
  const chunks = await chatStream(config.connection, body, call(config, request));
  const summary = yield* streamTurn(chunks, { answerLimit: newAnswerLimit(config.connection), firstCallOnly: false, holdText: false });
  yield {
    type: 'finish',
    finishReason: mapFinishReason(summary.doneReason, false),
    ...(summary.usage !== undefined ? { usage: summary.usage } : {}),
    ...(summary.modelId !== undefined ? { modelId: summary.modelId } : {}),
  };
}
