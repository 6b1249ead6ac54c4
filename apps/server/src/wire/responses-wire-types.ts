/**
 * The parts of OpenAI's Responses wire format the gateway writes (field names and shapes
 * as in openai-node's `resources/responses`). Kept here so the gateway has no runtime
 * dependency on an SDK.
 */
import type { ResponsesEcho } from './parsed-responses-request.ts';

/** A text part of an assistant message. */
export interface WireOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

/** An assistant message item (`msg_…`). */
export interface WireMessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: WireOutputText[];
}

/** A call of a client's function (`fc_…`), `arguments` a JSON string. */
export interface WireFunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  namespace?: string;
}

/** A call of a client's freeform tool (`ctc_…`), `input` the text the model wrote. */
export interface WireCustomToolCallItem {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
  namespace?: string;
}

/** The model's reasoning text (`rs_…`), as open models write it. */
export interface WireReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  content?: { type: 'reasoning_text'; text: string }[];
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/** Any item the gateway puts in `output`. */
export type WireOutputItem = WireMessageItem | WireFunctionCallItem | WireCustomToolCallItem | WireReasoningItem;

/** Token counts in the Responses naming. */
export interface WireResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The Response object (`resp_…`), non-streamed or inside lifecycle events. */
export interface WireResponse extends ResponsesEcho {
  id: string;
  object: 'response';
  created_at: number;
  completed_at?: number | null;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  background: false;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: WireOutputItem[];
  max_tool_calls: null;
  top_logprobs: 0;
  /** `null` when the upstream reported no token counts (none are invented). */
  usage: WireResponsesUsage | null;
}

type WithSequence<T> = T & { sequence_number: number };

/** The server-sent events of a streamed response, in the order they may come. */
export type WireResponsesEvent = WithSequence<
  | { type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete' | 'response.failed'; response: WireResponse }
  | { type: 'response.output_item.added' | 'response.output_item.done'; output_index: number; item: WireOutputItem }
  | {
      type: 'response.content_part.added' | 'response.content_part.done';
      item_id: string;
      output_index: number;
      content_index: number;
      part: WireOutputText | { type: 'reasoning_text'; text: string };
    }
  | { type: 'response.output_text.delta'; item_id: string; output_index: number; content_index: number; delta: string; logprobs: unknown[] }
  | { type: 'response.output_text.done'; item_id: string; output_index: number; content_index: number; text: string; logprobs: unknown[] }
  | { type: 'response.reasoning_text.delta'; item_id: string; output_index: number; content_index: number; delta: string }
  | { type: 'response.reasoning_text.done'; item_id: string; output_index: number; content_index: number; text: string }
  | { type: 'response.function_call_arguments.delta'; item_id: string; output_index: number; delta: string }
  | { type: 'response.function_call_arguments.done'; item_id: string; output_index: number; name: string; arguments: string }
  | { type: 'response.custom_tool_call_input.delta'; item_id: string; output_index: number; delta: string }
  | { type: 'response.custom_tool_call_input.done'; item_id: string; output_index: number; input: string }
  | { type: 'error'; code: string | null; message: string; param: string | null }
>;
