import { InvalidToolConfigError, partitionTools } from '@toolwire/core';
import type { ProviderTool, ToolChoice, ToolSpec } from '@toolwire/core';
import type { Tool, ToolChoiceFunction, ToolChoiceOptions, ToolChoiceTypes } from 'openai/resources/responses/responses';
import { toStrictJsonSchema } from './strict-json-schema.ts';

/** The `config` of an OpenAI `ProviderTool` (the convention documented in core's provider-tool.ts). */
export interface OpenAIProviderToolConfig {
  /** The object put in the Responses `tools` array as is, e.g. `{ type: 'code_interpreter', container: { type: 'auto' } }`. */
  wireTool: { type: string } & Record<string, unknown>;
  /** Values merged into the request's `include`, e.g. `['code_interpreter_call.outputs']`. */
  include?: string[];
}

/** An OpenAI provider tool with its checked config. */
export interface ResolvedProviderTool {
  tool: ProviderTool;
  config: OpenAIProviderToolConfig;
  /** The output item type its calls come back as: `<wireTool.type>_call`. */
  itemType: string;
}

/** What the tool part of a Responses body becomes. */
export interface PreparedResponsesTools {
  tools: Tool[] | undefined;
  toolChoice: ToolChoiceOptions | ToolChoiceFunction | ToolChoiceTypes | undefined;
  include: string[];
  providerTools: ResolvedProviderTool[];
}

function readConfig(tool: ProviderTool): OpenAIProviderToolConfig {
  const config = tool.config as Partial<Record<string, unknown>>;
  const wireTool = config['wireTool'];
  if (typeof wireTool !== 'object' || wireTool === null || typeof (wireTool as { type?: unknown }).type !== 'string') {
    throw new InvalidToolConfigError({
      toolName: tool.name,
      problem: 'config.wireTool must be the Responses tool object, e.g. { type: "code_interpreter", container: { type: "auto" } }.',
    });
  }
  const include = config['include'];
  if (include !== undefined && (!Array.isArray(include) || include.some((value) => typeof value !== 'string'))) {
    throw new InvalidToolConfigError({ toolName: tool.name, problem: 'config.include must be an array of strings.' });
  }
  return {
    wireTool: wireTool as OpenAIProviderToolConfig['wireTool'],
    ...(include !== undefined ? { include: include as string[] } : {}),
  };
}

/**
 * Maps core tools to Responses `tools` (flat function tools, and each OpenAI provider
 * tool's `config.wireTool` as is), `tool_choice` (a provider tool's name becomes the
 * hosted-tool form `{ type: 'code_interpreter' }`) and the `include` values provider tools
 * ask for. Throws `ProviderToolMismatchError` / `InvalidToolConfigError` before any request.
 */
export function prepareResponsesTools(tools: readonly ToolSpec[] | undefined, toolChoice: ToolChoice | undefined): PreparedResponsesTools {
  const { functionTools, providerTools } = partitionTools(tools, 'openai');
  const resolved: ResolvedProviderTool[] = providerTools.map((tool) => {
    const config = readConfig(tool);
    return { tool, config, itemType: `${config.wireTool.type}_call` };
  });
  const include: string[] = [];
  for (const entry of resolved) for (const value of entry.config.include ?? []) if (!include.includes(value)) include.push(value);
  const wireTools: Tool[] = [
    ...functionTools.map((tool): Tool => {
      const strict = tool.strict === true;
      return {
        type: 'function',
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: strict ? toStrictJsonSchema(tool.inputSchema) : tool.inputSchema,
        strict,
      };
    }),
    ...resolved.map((entry) => entry.config.wireTool as unknown as Tool),
  ];
  if (wireTools.length === 0) return { tools: undefined, toolChoice: undefined, include, providerTools: resolved };
  return { tools: wireTools, toolChoice: mapResponsesToolChoice(toolChoice, resolved), include, providerTools: resolved };
}

/** Maps core's `ToolChoice` to the flat Responses forms. */
export function mapResponsesToolChoice(
  toolChoice: ToolChoice | undefined,
  providerTools: readonly ResolvedProviderTool[],
): ToolChoiceOptions | ToolChoiceFunction | ToolChoiceTypes | undefined {
  if (toolChoice === undefined) return undefined;
  if (typeof toolChoice === 'string') return toolChoice;
  const hosted = providerTools.find((entry) => entry.tool.name === toolChoice.name);
  if (hosted) return { type: hosted.config.wireTool.type } as ToolChoiceTypes;
  return { type: 'function', name: toolChoice.name };
}
