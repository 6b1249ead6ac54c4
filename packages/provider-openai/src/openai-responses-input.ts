import type { Message, Warning } from '@toolwire/core';
import type { ResponseInputItem, ResponseInputMessageContentList } from 'openai/resources/responses/responses';
import { toImageUrl } from './image-url.ts';

/** Options of `toResponsesInput`. */
export interface ResponsesInputOptions {
  /** `false` when the request sets `store: false`: stored items cannot be referenced then. */
  store?: boolean;
}

/**
 * Maps core messages to Responses `input` items. Leading system messages become
 * `instructions`; tool calls become `function_call` items and tool results
 * `function_call_output` items, linked by `call_id`. A call the provider ran itself
 * (code interpreter) is replayed as an `item_reference` to the stored item.
 */
export function toResponsesInput(
  messages: readonly Message[],
  options: ResponsesInputOptions = {},
): { instructions: string | undefined; input: ResponseInputItem[]; warnings: Warning[] } {
  const instructions: string[] = [];
  const input: ResponseInputItem[] = [];
  const warnings: Warning[] = [];
  let leading = true;
  for (const message of messages) {
    if (message.role !== 'system') leading = false;
    switch (message.role) {
      case 'system':
        if (leading) instructions.push(message.content);
        else input.push({ role: 'system', content: message.content });
        break;
      case 'user':
        if (typeof message.content === 'string') {
          input.push({ role: 'user', content: message.content });
        } else {
          const content: ResponseInputMessageContentList = message.content.map((part) =>
            part.type === 'text'
              ? { type: 'input_text', text: part.text }
              : { type: 'input_image', image_url: toImageUrl(part.image, part.mediaType), detail: 'auto' },
          );
          input.push({ role: 'user', content });
        }
        break;
      case 'assistant':
        if (message.content !== '') input.push({ role: 'assistant', content: message.content });
        for (const call of message.toolCalls ?? []) {
          if (call.providerExecuted === true) {
            if (options.store === false) {
              warnings.push({
                type: 'other',
                message: `The provider-executed call ${call.id} was left out of the input: with store: false it cannot be referenced.`,
              });
            } else {
              input.push({ type: 'item_reference', id: call.id });
            }
            continue;
          }
          // No item `id`: a function_call with its id needs its reasoning item beside it.
          input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.arguments) });
        }
        break;
      case 'tool':
        input.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
        break;
      default: {
        const unexpected: never = message;
        throw new Error(`Unknown message role in ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return { instructions: instructions.length > 0 ? instructions.join('\n\n') : undefined, input, warnings };
}
