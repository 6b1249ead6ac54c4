import type { ChatResponse, ToolCall, Warning } from '@toolwire/core';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { mapChatFinishReason } from './openai-chat-finish-reason.ts';
import { mapChatUsage } from './openai-usage.ts';
import { readTextCall, textCallWarning, toToolCall } from '@toolwire/core/provider';
import { droppedCallsWarning } from '@toolwire/openai-responses';

/** Options of `mapChatResponse`. */
export interface MapChatResponseOptions {
  /** `false` keeps only the first call, with a warning. */
  parallelToolCalls?: boolean;
  /** Makes ids for calls a server sent without one. */
  generateId: () => string;
  /**
   * The tools offered: a text that is nothing but one call to one of them (a compatible
   * server that left the call in `content`) becomes that call, with a warning.
   */
  textCallTools?: readonly { name: string }[];
}

/** Fields compatible servers add to messages and deltas (vLLM, DeepSeek: `reasoning_content`; Ollama: `reasoning`). */
interface ReasoningFields {
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/** The reasoning text a compatible server put beside the content, if any. */
export function readReasoning(value: object): string | undefined {
  const fields = value as ReasoningFields;
  if (typeof fields.reasoning_content === 'string') return fields.reasoning_content;
  if (typeof fields.reasoning === 'string') return fields.reasoning;
  return undefined;
}

/** The text of one part of a content list: a string, or a `text` part's `text`. */
function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (typeof part !== 'object' || part === null) return '';
  const { type, text } = part as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' ? text : '';
}

/**
 * The text and reasoning of a `content` sent as a list of parts (Mistral's reasoning models):
 * `text` parts are the text, `thinking` parts (a string, or their own list of text parts)
 * the reasoning; other parts (images, references) are left out.
 */
export function readContentParts(parts: readonly unknown[]): { text: string; reasoning: string } {
  let text = '';
  let reasoning = '';
  for (const part of parts) {
    if (typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'thinking') {
      const thinking = (part as { thinking?: unknown }).thinking;
      if (typeof thinking === 'string') reasoning += thinking;
      else if (Array.isArray(thinking)) for (const inner of thinking) reasoning += partText(inner);
    } else {
      text += partText(part);
    }
  }
  return { text, reasoning };
}

/** llama.cpp once sent `arguments` as an object; keep it readable as JSON text. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

/**
 * Maps a Chat Completions response to core's `ChatResponse` (pure): content, tool calls
 * with parsed arguments, refusal, reasoning of compatible servers, finish reason, usage.
 */
export function mapChatResponse(completion: ChatCompletion, options: MapChatResponseOptions): ChatResponse {
  const choice = completion.choices[0];
  const warnings: Warning[] = [];
  const message = choice?.message;
  const content: unknown = message?.content;
  const parts = Array.isArray(content) ? readContentParts(content) : undefined;
  let text = typeof content === 'string' ? content : (parts?.text ?? '');
  const rawFinish = choice?.finish_reason;
  const wireCalls = message?.tool_calls ?? [];
  let toolCalls: ToolCall[] = [];
  const usedIds = new Set<string>();
  wireCalls.forEach((call, position) => {
    // A call without `type` (some compatible servers leave it out) is a function call.
    if (call.type === 'custom') {
      warnings.push({ type: 'unsupported-tool', toolName: call.custom.name, message: 'Custom tool calls are not supported.' });
      return;
    }
    // Some compatible servers send no id (or an empty one), or one id for every call: such
    // a call gets one of ours, since ids only pair calls with their results.
    const id = typeof call.id === 'string' && call.id !== '' && !usedIds.has(call.id) ? call.id : options.generateId();
    usedIds.add(id);
    toolCalls.push(
      toToolCall({
        id,
        name: call.function.name,
        rawArguments: argumentsText(call.function.arguments),
        // Cut off by the token limit: the last call is the one being written.
        truncated: rawFinish === 'length' && position === wireCalls.length - 1,
      }),
    );
  });
  // Not for an answer cut by the token limit: that text is no whole call.
  const textCall = toolCalls.length === 0 && wireCalls.length === 0 && rawFinish !== 'length' && options.textCallTools !== undefined ? readTextCall(text, options.textCallTools) : undefined;
  if (textCall !== undefined) {
    warnings.push(textCallWarning(textCall.name, 'the server'));
    toolCalls = [textCall];
    text = '';
  }
  if (options.parallelToolCalls === false && toolCalls.length > 1) {
    warnings.push(droppedCallsWarning(toolCalls.length - 1));
    toolCalls = toolCalls.slice(0, 1);
  }
  const reasoning = (message ? readReasoning(message) : undefined) ?? (parts !== undefined && parts.reasoning !== '' ? parts.reasoning : undefined);
  const refusal = message?.refusal ?? undefined;
  const response: ChatResponse = {
    text,
    toolCalls,
    toolResults: [],
    finishReason: mapChatFinishReason(rawFinish, toolCalls.length > 0),
    warnings,
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(reasoning !== undefined ? { reasoning } : {}),
    },
  };
  // A compatible server has sent an id that is a list: only strings go out.
  if (typeof completion.id === 'string') response.responseId = completion.id;
  if (typeof completion.model === 'string') response.modelId = completion.model;
  const usage = mapChatUsage(completion.usage);
  if (usage) response.usage = usage;
  if (reasoning !== undefined) response.reasoning = reasoning;
  if (refusal !== undefined) response.refusal = refusal;
  return response;
}
