import type { AssistantMessage, ToolCall } from '@toolwire/core';
import { CUSTOM_TOOL_INPUT } from './parse-responses-tools.ts';
import type { WireOutputItem } from './responses-wire-types.ts';

/**
 * A response's output items → the assistant message they make in a conversation (for
 * `previous_response_id`): the text of its messages and its calls, in order. Reasoning is
 * left out, as it is when a client replays reasoning items.
 */
export function toOutputMessage(output: readonly WireOutputItem[]): AssistantMessage {
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const item of output) {
    switch (item.type) {
      case 'message':
        for (const part of item.content) content += part.text;
        break;
      case 'function_call': {
        let args: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(item.arguments === '' ? '{}' : item.arguments);
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
        } catch {
          // The model's unreadable text was the client's to answer; the model sees it as written.
          toolCalls.push({ id: item.call_id, name: item.name, arguments: {}, invalid: { rawArguments: item.arguments, message: 'The arguments are not valid JSON.' } });
          break;
        }
        toolCalls.push({ id: item.call_id, name: item.name, arguments: args });
        break;
      }
      case 'custom_tool_call':
        toolCalls.push({ id: item.call_id, name: item.name, arguments: { [CUSTOM_TOOL_INPUT]: item.input } });
        break;
      case 'reasoning':
        break;
      default: {
        const unexpected: never = item;
        throw new Error(`Unknown output item ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return toolCalls.length > 0 ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content };
}
