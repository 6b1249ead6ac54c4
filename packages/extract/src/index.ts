// Placeholder exports with their final signatures; @toolwire/extract fills them in.
import { UnsupportedFeatureError } from '@toolwire/core';
import type { ChatModel, Tool, ToolCall } from '@toolwire/core';

/** Options of `extractToolCalls`. */
export interface ExtractOptions {
  /** Allow-list: tool names, or tool definitions whose schemas drive type coercion. */
  tools?: readonly (string | Tool)[];
}

/** Finds the tool calls a model wrote into its text. */
export function extractToolCalls(_text: string, _options?: ExtractOptions): ToolCall[] {
  throw new UnsupportedFeatureError({ feature: 'extractToolCalls', message: 'extractToolCalls is being written.' });
}

/** Options of `withTextToolCalling`. */
export interface TextToolCallingOptions {
  /** How the prompt asks the model to write calls: `name(a=1)` (default) or `<tool_call>{json}</tool_call>`. */
  format?: 'call' | 'json-tag';
}

/** Gives a text-only `ChatModel` tool calling: tools go into the prompt, calls come out of the text. */
export function withTextToolCalling(_model: ChatModel, _options?: TextToolCallingOptions): ChatModel {
  throw new UnsupportedFeatureError({ feature: 'withTextToolCalling', message: 'withTextToolCalling is being written.' });
}
