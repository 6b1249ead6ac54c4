// Chat Completions payloads shaped as OpenAI sends them (research/openai-compat.md §1:
// role first, one delta per call fragment, an empty finishing delta, then a usage chunk).
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';

const ID = 'chatcmpl-BkQ4t0aHn1mSXx8dDqk2Yb3cA1';
const CREATED = 1_750_000_000;
const MODEL = 'gpt-4.1-mini-2025-04-14';

type Delta = ChatCompletionChunk.Choice.Delta;
type FinishReason = ChatCompletionChunk.Choice['finish_reason'];

/** One chunk with one choice. */
export function chunk(delta: Delta, finishReason: FinishReason = null): ChatCompletionChunk {
  return {
    id: ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}

/** The first chunk: the role, empty content. */
export function roleChunk(): ChatCompletionChunk {
  return chunk({ role: 'assistant', content: null, refusal: null });
}

/** The first fragment of call `index`: id, type, name, empty arguments. */
export function callStart(index: number, id: string, name: string): ChatCompletionChunk {
  return chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
}

/** A later fragment of call `index`. */
export function callArgs(index: number, fragment: string): ChatCompletionChunk {
  return chunk({ tool_calls: [{ index, function: { arguments: fragment } }] });
}

/** The empty finishing delta. */
export function finishChunk(reason: NonNullable<FinishReason>): ChatCompletionChunk {
  return chunk({}, reason);
}

/** The usage chunk that comes after the finish with `include_usage`. */
export function usageChunk(prompt = 82, completion = 17, cached = 64, reasoning = 0): ChatCompletionChunk {
  return {
    id: ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  };
}

/** A whole streamed turn with text deltas. */
export function textStream(parts: string[]): ChatCompletionChunk[] {
  return [roleChunk(), ...parts.map((content) => chunk({ content })), finishChunk('stop'), usageChunk()];
}

/** A whole streamed turn with calls sent one after another, arguments in the given fragments. */
export function callsStream(calls: { id: string; name: string; fragments: string[] }[], finish: NonNullable<FinishReason> = 'tool_calls'): ChatCompletionChunk[] {
  const chunks = [roleChunk()];
  calls.forEach((call, index) => {
    chunks.push(callStart(index, call.id, call.name));
    for (const fragment of call.fragments) chunks.push(callArgs(index, fragment));
  });
  chunks.push(finishChunk(finish), usageChunk());
  return chunks;
}

/** A non-streamed completion. */
export function completion(message: Partial<ChatCompletion.Choice['message']>, finishReason: ChatCompletion.Choice['finish_reason'] = 'stop'): ChatCompletion {
  return {
    id: ID,
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    service_tier: 'default',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: {
      prompt_tokens: 82,
      completion_tokens: 17,
      total_tokens: 99,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  };
}
