import { InvalidToolConfigError, InvalidToolDefinitionError, partitionTools } from '@toolwire/core';
import type { FunctionToolSpec, ProviderTool, ToolChoice, ToolSpec } from '@toolwire/core';
import { normalizeToolSchema } from './normalize-tool-schema.ts';
import type { ResponsesFunctionTool, ResponsesTool, ResponsesToolChoice } from './responses-wire.ts';
import { toStrictJsonSchema } from './strict-json-schema.ts';

/** The `config` of a Responses `ProviderTool` (the convention documented in core's provider-tool.ts). */
export interface ResponsesProviderToolConfig {
  /** The object put in the Responses `tools` array as is, e.g. `{ type: 'code_interpreter', container: { type: 'auto' } }`. */
  wireTool: { type: string } & Record<string, unknown>;
  /** Values merged into the request's `include`, e.g. `['code_interpreter_call.outputs']`. */
  include?: string[];
}

/** A provider tool with its checked config. */
export interface ResolvedProviderTool {
  tool: ProviderTool;
  config: ResponsesProviderToolConfig;
  /** The output item type its calls come back as: `<wireTool.type>_call`. */
  itemType: string;
}

/** What the tool part of a Responses body becomes. */
export interface PreparedResponsesTools {
  tools: ResponsesTool[] | undefined;
  toolChoice: ResponsesToolChoice | undefined;
  include: string[];
  providerTools: ResolvedProviderTool[];
}

/** Options of `prepareResponsesTools`. */
export interface PrepareResponsesToolsOptions {
  /** Provider tools bound to another provider are refused (`ProviderToolMismatchError`). */
  provider: string;
  /**
   * Clean schemas up the way Codex does before the backend sees them (a missing `type`
   * inferred, `properties: {}` on objects, `items` on arrays). Default `false`.
   */
  normalizeSchemas?: boolean;
  /** Refuse names outside `^[A-Za-z0-9_-]{1,64}$` before any request. Default `false`. */
  checkNames?: boolean;
}

function readConfig(tool: ProviderTool): ResponsesProviderToolConfig {
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
    wireTool: wireTool as ResponsesProviderToolConfig['wireTool'],
    ...(include !== undefined ? { include: include as string[] } : {}),
  };
}

/** Resolves a request's provider tools; throws `ProviderToolMismatchError` / `InvalidToolConfigError` before any request. */
export function resolveProviderTools(providerTools: readonly ProviderTool[]): ResolvedProviderTool[] {
  return providerTools.map((tool) => {
    const config = readConfig(tool);
    return { tool, config, itemType: `${config.wireTool.type}_call` };
  });
}

/**
 * A function tool in the flat Responses form. A `strict: true` tool's schema is rewritten
 * into the strict form (every property required, optional ones nullable,
 * `additionalProperties: false`), which the API requires of strict tools.
 */
export function toResponsesFunctionTool(tool: FunctionToolSpec, options: { normalizeSchemas?: boolean } = {}): ResponsesFunctionTool {
  const strict = tool.strict === true;
  const schema = options.normalizeSchemas === true ? normalizeToolSchema(tool.inputSchema) : tool.inputSchema;
  return {
    type: 'function',
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    parameters: strict ? toStrictJsonSchema(schema) : schema,
    strict,
  };
}

/**
 * Maps core tools to Responses `tools` (flat function tools, and each provider tool's
 * `config.wireTool` as is), `tool_choice` (a provider tool's name becomes the hosted-tool
 * form `{ type: 'code_interpreter' }`) and the `include` values provider tools ask for.
 */
export function prepareResponsesTools(
  tools: readonly ToolSpec[] | undefined,
  toolChoice: ToolChoice | undefined,
  options: PrepareResponsesToolsOptions = { provider: 'openai' },
): PreparedResponsesTools {
  const { functionTools, providerTools } = partitionTools(tools, options.provider);
  if (options.checkNames === true) for (const tool of functionTools) checkToolName(tool.name);
  const resolved = resolveProviderTools(providerTools);
  const include: string[] = [];
  for (const entry of resolved) for (const value of entry.config.include ?? []) if (!include.includes(value)) include.push(value);
  const wireTools: ResponsesTool[] = [
    ...functionTools.map((tool) => toResponsesFunctionTool(tool, { normalizeSchemas: options.normalizeSchemas === true })),
    ...resolved.map((entry) => entry.config.wireTool),
  ];
  if (wireTools.length === 0) return { tools: undefined, toolChoice: undefined, include, providerTools: resolved };
  return { tools: wireTools, toolChoice: mapResponsesToolChoice(toolChoice, resolved), include, providerTools: resolved };
}

/** Maps core's `ToolChoice` to the flat Responses forms. */
export function mapResponsesToolChoice(toolChoice: ToolChoice | undefined, providerTools: readonly ResolvedProviderTool[]): ResponsesToolChoice | undefined {
  if (toolChoice === undefined) return undefined;
  if (typeof toolChoice === 'string') return toolChoice;
  const hosted = providerTools.find((entry) => entry.tool.name === toolChoice.name);
  if (hosted) return { type: hosted.config.wireTool.type };
  return { type: 'function', name: toolChoice.name };
}

/** Finds the provider tool whose calls come back as items of this type. */
export function findProviderTool(providerTools: readonly ResolvedProviderTool[], itemType: unknown): ResolvedProviderTool | undefined {
  return providerTools.find((entry) => entry.itemType === itemType);
}

/** The Responses API's tool-name rule, `^[A-Za-z0-9_-]{1,64}$`, checked without a regex. */
export function checkToolName(name: string): void {
  let valid = name.length >= 1 && name.length <= 64;
  for (let index = 0; valid && index < name.length; index++) {
    const code = name.charCodeAt(index);
    valid = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 /* _ */ || code === 45; /* - */
  }
  if (!valid) {
    throw new InvalidToolDefinitionError({
      toolName: name,
      problem: 'the Responses API accepts tool names of 1 to 64 letters, digits, `_` and `-` only. Rename the tool.',
    });
  }
}
