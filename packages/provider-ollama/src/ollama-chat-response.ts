import type { ChatResponse, FinishReason, ToolCall, Usage, Warning } from '@toolwire/core';
import type { OllamaChatChunk } from './ollama-wire.ts';

/**
 * The finish reason of an Ollama answer. Ollama's `done_reason` is never `tool_calls`,
 * so a turn with calls is derived from the calls themselves.
 */
export function mapFinishReason(doneReason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (doneReason === 'length') return 'length';
  if (hasToolCalls) return 'tool-calls';
  if (doneReason === 'stop' || doneReason === undefined || doneReason === '') return 'stop';
  return 'other';
}

/** Token counts of the final chunk, when Ollama sent them. */
export function mapUsage(chunk: OllamaChatChunk): Usage | undefined {
  if (chunk.prompt_eval_count === undefined && chunk.eval_count === undefined) return undefined;
  const inputTokens = chunk.prompt_eval_count ?? 0;
  const outputTokens = chunk.eval_count ?? 0;
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** What one turn produced, streamed or not: the input of `buildResponse`. */
export interface TurnSummary {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  doneReason: string | undefined;
  usage: Usage | undefined;
  modelId: string | undefined;
  /** Streaming: the text was held back to the end, as it may be a call written as text (not yet sent). */
  heldText?: boolean;
}

/** Builds the core response of one turn. */
export function buildResponse(options: TurnSummary & { warnings: Warning[] }): ChatResponse {
  const { text, reasoning, toolCalls } = options;
  const response: ChatResponse = {
    text,
    toolCalls,
    toolResults: [],
    finishReason: mapFinishReason(options.doneReason, toolCalls.length > 0),
    warnings: options.warnings,
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(reasoning !== '' ? { reasoning } : {}),
    },
  };
  if (reasoning !== '') response.reasoning = reasoning;
  if (options.usage !== undefined) response.usage = options.usage;
  if (options.modelId !== undefined) response.modelId = options.modelId;
  return response;
}
