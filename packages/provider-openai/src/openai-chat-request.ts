import type { ChatRequest, Warning } from '@toolwire/core';
import { answerUnansweredToolCalls } from '@toolwire/core/provider';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { toChatMessages } from './openai-chat-messages.ts';
import type { SystemMessageMode } from './openai-chat-messages.ts';
import { prepareChatTools } from './openai-chat-prepare-tools.ts';
import { readOpenAIOptions } from './openai-provider-options.ts';

/** Options of `buildChatRequest`. */
export interface BuildChatRequestOptions {
  modelId: string;
  request: ChatRequest;
  stream: boolean;
  systemMessageMode?: SystemMessageMode;
  maxTokensParameter?: 'max_completion_tokens' | 'max_tokens';
}

/** A Chat Completions body and what could not be mapped. */
export interface BuiltChatRequest {
  body: ChatCompletionCreateParamsBase;
  warnings: Warning[];
}

/**
 * Builds the Chat Completions body for a core request (pure). `providerOptions.openai`
 * entries are merged into the body in wire names (`reasoning_effort`, `user`); they cannot
 * replace `model`, `messages` or `tools`. Calls in the history without a result are answered first.
 */
export function buildChatRequest(options: BuildChatRequestOptions): BuiltChatRequest {
  const { request, modelId } = options;
  const prepared = prepareChatTools(request.tools, request.toolChoice);
  const answered = answerUnansweredToolCalls(request.messages);
  const mapped = toChatMessages(answered.messages, options.systemMessageMode);
  const body: ChatCompletionCreateParamsBase = { model: modelId, messages: mapped.messages };
  if (prepared.tools) {
    body.tools = prepared.tools;
    if (prepared.toolChoice !== undefined) body.tool_choice = prepared.toolChoice;
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) {
    // Compatible servers (Ollama, older vLLM and llama.cpp) only read the older field.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    if (options.maxTokensParameter === 'max_tokens') body.max_tokens = request.maxOutputTokens;
    else body.max_completion_tokens = request.maxOutputTokens;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined) body.stop = request.stop;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- still honoured, and by compatible servers
  if (request.seed !== undefined) body.seed = request.seed;
  const format = request.responseFormat;
  if (format?.type === 'json') {
    body.response_format = format.schema
      ? {
          type: 'json_schema',
          json_schema: {
            name: format.name ?? 'response',
            ...(format.description !== undefined ? { description: format.description } : {}),
            schema: format.schema,
          },
        }
      : { type: 'json_object' };
  }
  if (options.stream) body.stream_options = { include_usage: true };
  const extra = readOpenAIOptions(request.providerOptions?.['openai'], 'chat');
  const merged: ChatCompletionCreateParamsBase = { ...body, ...extra.options };
  return { body: merged, warnings: [...extra.warnings, ...answered.warnings, ...prepared.warnings, ...mapped.warnings] };
}
