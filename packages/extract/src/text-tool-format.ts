/** How a prompt asks a text-only model to write calls: `name(a=1)` or `<tool_call>{json}</tool_call>`. */
export type TextToolFormat = 'call' | 'json-tag';
