import type { FunctionToolSpec, JsonSchema, ToolChoice } from '@toolwire/core';
import { renderToolCall } from './render-tool-call.ts';
import type { TextToolFormat } from './text-tool-format.ts';

/** Options of `renderToolPrompt`. */
export interface RenderToolPromptOptions {
  /** The call format the model is taught (default `'call'`). */
  format?: TextToolFormat;
  /**
   * Teaches the format the model family was trained on (`'qwen3-xml'`, `'hermes'`,
   * `'harmony'`, …); wins over `format`. Extraction reads every format either way.
   */
  promptFormat?: TextToolFormat;
  /** `'required'` or a named tool adds an instruction to call one; `'none'` renders nothing. */
  toolChoice?: ToolChoice;
  /** `false` asks for at most one call per answer. */
  parallelToolCalls?: boolean;
}

/** What the prompt needs of a tool. */
export type PromptTool = Pick<FunctionToolSpec, 'name' | 'description' | 'inputSchema'>;

/**
 * The schema when it is an object; else undefined. Schemas come from clients, MCP servers and
 * OpenAPI documents: a property schema may be `true`, `null` or a string however it is typed.
 */
function asSchema(schema: unknown): JsonSchema | undefined {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as JsonSchema) : undefined;
}

function typeText(given: unknown): string {
  const schema = asSchema(given);
  if (schema === undefined) return 'any';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.map((v) => JSON.stringify(v) ?? 'null').join(' | ');
  const type: unknown = schema.type;
  const names = (Array.isArray(type) ? type : type === undefined ? [] : [type]).filter((name): name is string => typeof name === 'string');
  if (names.length === 0) {
    const branches: unknown = schema.anyOf ?? schema.oneOf;
    return Array.isArray(branches) && branches.length > 0 ? branches.map(typeText).join(' | ') : 'any';
  }
  return names
    .map((name) => {
      if (name === 'array' && schema.items !== undefined && !Array.isArray(schema.items)) return `${typeText(schema.items)}[]`;
      return name === 'dict' ? 'object' : name;
    })
    .join(' | ');
}

function exampleValue(given: unknown): string {
  const schema = asSchema(given);
  if (schema !== undefined && Array.isArray(schema.enum) && schema.enum.length > 0) return JSON.stringify(schema.enum[0]) ?? 'null';
  const type: unknown = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  switch (type) {
    case 'integer':
    case 'number':
      return '1';
    case 'boolean':
      return 'true';
    case 'array':
      return '[]';
    case 'object':
      return '{}';
    default:
      return '"..."';
  }
}

/** The tool's parameter schemas by name, and the names it requires, whatever shape its schema has. */
function parametersOf(tool: PromptTool): { properties: Record<string, unknown>; required: string[] } {
  const properties = asSchema(asSchema(tool.inputSchema)?.properties) ?? {};
  const required: unknown = asSchema(tool.inputSchema)?.required;
  return { properties, required: Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [] };
}

function renderTool(tool: PromptTool): string {
  const { properties, required: names } = parametersOf(tool);
  const required = new Set(names);
  const params = Object.entries(properties).map(([key, schema]) => `${key}${required.has(key) ? '' : '?'}: ${typeText(schema)}`);
  const lines = [`- ${tool.name}(${params.join(', ')})${tool.description ? `: ${tool.description}` : ''}`];
  for (const [key, schema] of Object.entries(properties)) {
    const description = asSchema(schema)?.description;
    if (typeof description === 'string' && description !== '') lines.push(`    ${key}: ${description}`);
  }
  return lines.join('\n');
}

function example(tool: PromptTool, format: TextToolFormat): string {
  const { properties, required } = parametersOf(tool);
  const keys = required.length > 0 ? required : Object.keys(properties).slice(0, 1);
  if (format === 'json-tag') {
    const args = keys.map((key) => `${JSON.stringify(key)}: ${exampleValue(properties[key])}`).join(', ');
    return `<tool_call>{"name": ${JSON.stringify(tool.name)}, "arguments": {${args}}}</tool_call>`;
  }
  if (format === 'call') return `${tool.name}(${keys.map((key) => `${key}=${exampleValue(properties[key])}`).join(', ')})`;
  const args: Record<string, unknown> = {};
  for (const key of keys) args[key] = JSON.parse(exampleValue(properties[key])) as unknown;
  return renderToolCall({ name: tool.name, arguments: args }, format);
}

/** The sentence before the example: how calls are written in `format`. */
function instruction(format: TextToolFormat): string {
  switch (format) {
    case 'call':
      return 'To call a tool, write the call on its own line with named arguments and JSON values (strings in double quotes), e.g.:';
    case 'json-tag':
    case 'hermes':
      return 'To call a tool, write a JSON object with its name and arguments inside <tool_call></tool_call> tags, e.g.:';
    case 'qwen3-xml':
    case 'seed-oss':
      return 'To call a tool, write a <function=NAME> block with one <parameter=NAME> element per argument, e.g.:';
    case 'minimax-m2':
      return 'To call a tool, write an <invoke name="NAME"> element with one <parameter name="NAME"> element per argument, e.g.:';
    case 'minicpm5':
      return 'To call a tool, write a <function name="NAME"> element with one <param name="NAME"> element per argument, e.g.:';
    case 'minimax-m3':
      return 'To call a tool, write an invoke element with one element per argument (nested elements for objects, item elements for lists), each tag after the ]<]minimax[>[ marker, e.g.:';
    case 'glm':
      return 'To call a tool, write its name after <tool_call>, then an <arg_key>/<arg_value> pair per argument, e.g.:';
    case 'deepseek':
    case 'kimi-k2':
    case 'harmony':
    case 'mistral':
    case 'functionary':
    case 'apertus':
    case 'plamo3':
      return 'To call a tool, write its name and its arguments as a JSON object in this format, e.g.:';
    case 'deepseek-dsml':
      return 'To call a tool, write an invoke element with one parameter element per argument (string="false" for JSON values), e.g.:';
    case 'gemma4':
      return 'To call a tool, write call:NAME{key:value,…} inside the tool-call tokens, strings between <|"|> tokens, e.g.:';
    case 'functiongemma':
      return 'To call a tool, write call:NAME{key:value,…} between <start_function_call> and <end_function_call>, strings between <escape> tokens, e.g.:';
    case 'kimi-k3':
      return 'To call a tool, write a call element with one argument element per argument (its type; strings raw, other values as JSON) in the tools channel, e.g.:';
    case 'solar-open':
      return 'To call a tool, write its name after <|tool_call:start|> on its own line, then one <|tool_arg:start|>NAME<|tool_arg:value|>VALUE<|tool_arg:end|> line per argument, e.g.:';
    default: {
      const unknown: never = format;
      throw new Error(`unknown format ${String(unknown)}`);
    }
  }
}

/**
 * The system-prompt section that teaches a model without native tools to call them:
 * the call format with an example, each tool with its parameters, and how to answer
 * without a tool. Kept short for small context windows.
 *
 * @example renderToolPrompt([getWeather], { format: 'call' })
 * @example renderToolPrompt([getWeather], { promptFormat: 'qwen3-xml' }) // for a Qwen3-Coder model
 */
export function renderToolPrompt(tools: readonly PromptTool[], options?: RenderToolPromptOptions): string {
  const format = options?.promptFormat ?? options?.format ?? 'call';
  const choice = options?.toolChoice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return '';
  const first = tools[0];
  if (first === undefined) return '';
  const lines = ['You can call these tools:', ...tools.map(renderTool), ''];
  lines.push(instruction(format));
  lines.push(example(first, format));
  lines.push(
    options?.parallelToolCalls === false
      ? 'Call at most one tool per answer, then stop: the result comes back in the next message.'
      : 'Write one call per line (several if needed), then stop: the results come back in the next message.',
  );
  if (choice === 'auto') {
    lines.push('If no tool is needed, answer in plain text without any call.');
  } else if (choice === 'required') {
    lines.push('You must call at least one of these tools in this answer.');
  } else {
    lines.push(`You must call the tool ${choice.name} in this answer.`);
  }
  return lines.join('\n');
}
