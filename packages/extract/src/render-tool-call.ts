import type { ToolCall } from '@toolwire/core';
import { isValidName } from './identifier.ts';
import type { TextToolFormat } from './text-tool-format.ts';

/**
 * A tool call written the way the prompt asks the model to write it, so that earlier
 * calls in the history read as examples: `get_weather(city="Paris")` or
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`.
 * The text parses back to the same call.
 */
export function renderToolCall(call: Pick<ToolCall, 'name' | 'arguments'>, format: TextToolFormat = 'call'): string {
  switch (format) {
    case 'json-tag':
      return `<tool_call>${JSON.stringify({ name: call.name, arguments: call.arguments })}</tool_call>`;
    case 'call': {
      const keys = Object.keys(call.arguments);
      // Keys that are not plain identifiers (dotted, hyphenated) go in the object form.
      if (keys.some((key) => !isValidName(key) || key.includes('.') || key.includes('-'))) return `${call.name}(${JSON.stringify(call.arguments)})`;
      return `${call.name}(${keys.map((key) => `${key}=${JSON.stringify(call.arguments[key]) ?? 'null'}`).join(', ')})`;
    }
    default: {
      const unknown: never = format;
      throw new Error(`unknown format ${String(unknown)}`);
    }
  }
}
