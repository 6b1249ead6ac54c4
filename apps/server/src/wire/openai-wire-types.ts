/**
 * The parts of OpenAI's Chat Completions wire format the gateway writes. Kept here (not
 * imported from the `openai` package) so the gateway has no runtime dependency on an SDK.
 */

/** A function call as it appears on the wire: `arguments` is a JSON string. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Token counts in OpenAI's naming. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** OpenAI's finish reasons the gateway emits. */
export type WireFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** A non-streaming `chat.completion` response. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: string | null;
      tool_calls?: WireToolCall[];
      reasoning_content?: string;
    };
    finish_reason: WireFinishReason;
    logprobs: null;
  }[];
  usage?: WireUsage;
}

/** One element of `delta.tool_calls` in a chunk. */
export interface WireToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

/** The `delta` of a streamed choice. */
export interface WireDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string;
  tool_calls?: WireToolCallDelta[];
}

/** One `chat.completion.chunk` frame of a stream. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: WireDelta; finish_reason: WireFinishReason | null; logprobs: null }[];
  /** Present (as `null`, then the totals) only when the client asked for `include_usage`. */
  usage?: WireUsage | null;
}

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}
