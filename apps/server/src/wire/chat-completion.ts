import type { ChatResponse } from '@toolwire/core';
import { toWireFinishReason } from './finish-reason.ts';
import type { ChatCompletion, WireToolCall } from './openai-wire-types.ts';
import { toWireUsage } from './usage.ts';

/** What identifies one response: shared by the completion and by every chunk of a stream. */
export interface ResponseIdentity {
  /** `chatcmpl-…` */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The model name the client asked for. */
  model: string;
}

/** A core `ChatResponse` → OpenAI's non-streaming `chat.completion` body. */
export function toChatCompletion(identity: ResponseIdentity, response: ChatResponse): ChatCompletion {
  const toolCalls: WireToolCall[] = response.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const hasCalls = toolCalls.length > 0;
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    // `null` when the turn is only calls, as OpenAI sends it.
    content: hasCalls && response.text === '' ? null : response.text,
    refusal: response.refusal ?? null,
  };
  if (hasCalls) message.tool_calls = toolCalls;
  if (response.reasoning !== undefined && response.reasoning !== '') message.reasoning_content = response.reasoning;
  const completion: ChatCompletion = {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: toWireFinishReason(response.finishReason, hasCalls), logprobs: null }],
  };
  // Left out when the upstream reported none, rather than zeros a client would believe.
  if (response.usage !== undefined) completion.usage = toWireUsage(response.usage);
  return completion;
}
