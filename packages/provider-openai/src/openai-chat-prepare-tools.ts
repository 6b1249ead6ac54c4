import { partitionTools } from '@toolwire/core';
import type { ToolChoice, ToolSpec, Warning } from '@toolwire/core';
import type { ChatCompletionTool, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import { toStrictJsonSchema } from '@toolwire/openai-responses';

/** What the tool part of a Chat Completions body becomes. */
export interface PreparedChatTools {
  tools: ChatCompletionTool[] | undefined;
  toolChoice: ChatCompletionToolChoiceOption | undefined;
  warnings: Warning[];
}

/**
 * Maps core tools and `toolChoice` to Chat Completions `tools` / `tool_choice`. Strict
 * tools get OpenAI's strict schema. Provider tools bound to another provider throw
 * `ProviderToolMismatchError`; OpenAI provider tools only exist in the Responses API and
 * become a warning here.
 */
export function prepareChatTools(tools: readonly ToolSpec[] | undefined, toolChoice: ToolChoice | undefined): PreparedChatTools {
  const { functionTools, providerTools } = partitionTools(tools, 'openai');
  const warnings: Warning[] = providerTools.map((tool) => ({
    type: 'unsupported-tool',
    toolName: tool.name,
    message: `"${tool.name}" runs in OpenAI's Responses API only; use openai.responses(modelId) to offer it.`,
  }));
  if (functionTools.length === 0) return { tools: undefined, toolChoice: undefined, warnings };
  const wireTools: ChatCompletionTool[] = functionTools.map((tool) => {
    const strict = tool.strict === true;
    return {
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: strict ? toStrictJsonSchema(tool.inputSchema) : tool.inputSchema,
        ...(strict ? { strict: true } : {}),
      },
    };
  });
  return { tools: wireTools, toolChoice: mapChatToolChoice(toolChoice), warnings };
}

/** Maps core's `ToolChoice` to the Chat Completions form. */
export function mapChatToolChoice(toolChoice: ToolChoice | undefined): ChatCompletionToolChoiceOption | undefined {
  if (toolChoice === undefined) return undefined;
  if (typeof toolChoice === 'string') return toolChoice;
  return { type: 'function', function: { name: toolChoice.name } };
}
