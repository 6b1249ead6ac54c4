import { isValidToolName, TOOL_NAME_RULE } from '@toolwire/core';
import type { FunctionToolSpec, JsonSchema, ToolChoice } from '@toolwire/core';
import { checkToolSchema } from './check-tool-schema.ts';
import { invalidRequest } from './gateway-error.ts';
import { MAX_TOOLS } from './parse-chat-tools.ts';
import type { ResponsesTool } from './parsed-responses-request.ts';
import { isObject, unsupported } from './request-fields.ts';
import type { Json } from './request-fields.ts';

/** The one argument a freeform (`custom`) tool is offered with to models that lack such tools. */
export const CUSTOM_TOOL_INPUT = 'input';

// Hints for the hosted tool types clients are known to send by default.
const HOSTED_TOOL_HINTS: Record<string, string> = {
  web_search: 'Codex CLI: set web_search = "disabled" in config.toml.',
  web_search_preview: 'Offer a function that fetches pages instead (e.g. the server tool fetch_url).',
  file_search: 'Send the documents as input text instead.',
  code_interpreter: "Use the openai/ route's provider tools, or a function tool.",
};

function nameOf(entry: Json, param: string): string {
  const name = entry.name;
  if (typeof name !== 'string' || !isValidToolName(name)) {
    throw invalidRequest(
      `Invalid '${param}.name': ${JSON.stringify(name ?? null)} does not match '${TOOL_NAME_RULE.pattern}'. Use ${TOOL_NAME_RULE.description}.`,
      `${param}.name`,
      'invalid_value',
    );
  }
  return name;
}

function descriptionOf(entry: Json, param: string): string | undefined {
  const description = entry.description;
  if (description === undefined || description === null) return undefined;
  if (typeof description !== 'string') throw invalidRequest(`Invalid '${param}.description': expected a string.`, `${param}.description`, 'invalid_type');
  return description;
}

function functionTool(entry: Json, param: string, index: number): ResponsesTool {
  const name = nameOf(entry, param);
  const parameters = entry.parameters;
  let inputSchema: JsonSchema = { type: 'object', properties: {} };
  if (parameters !== undefined && parameters !== null) {
    if (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== 'object')) {
      throw invalidRequest(
        `Invalid schema for function '${name}': the parameters must be a JSON Schema of type 'object'.`,
        `${param}.parameters`,
        'invalid_function_parameters',
      );
    }
    const shapeError = checkToolSchema(parameters, name, `${param}.parameters`);
    if (shapeError !== undefined) throw shapeError;
    inputSchema = parameters.type === undefined ? { type: 'object', ...parameters } : parameters;
  }
  const spec: FunctionToolSpec = { type: 'function', name, inputSchema };
  const description = descriptionOf(entry, param);
  if (description !== undefined) spec.description = description;
  if (entry.strict === true) spec.strict = true;
  const given = (value: unknown): boolean => value !== undefined && value !== null;
  const definition = given(parameters) ? 'with-parameters' : given(description) || entry.strict === true ? 'without-parameters' : 'name-only';
  return { spec, param, index, definition, kind: 'function' };
}

/**
 * A freeform tool as a function with one string argument: what the model writes as the
 * argument is the tool's input. A grammar is shown to the model in the description (it is
 * not enforced: the client's tool checks its own input, as it must with any model).
 */
function customTool(entry: Json, param: string, index: number): ResponsesTool {
  const name = nameOf(entry, param);
  let description = descriptionOf(entry, param) ?? '';
  const format = entry.format;
  if (format !== undefined && format !== null) {
    if (!isObject(format) || (format.type !== 'text' && format.type !== 'grammar')) {
      throw invalidRequest(`Invalid '${param}.format': expected { type: 'text' } or { type: 'grammar', syntax, definition }.`, `${param}.format`, 'invalid_value');
    }
    if (format.type === 'grammar') {
      const { syntax, definition } = format;
      if ((syntax !== 'lark' && syntax !== 'regex') || typeof definition !== 'string') {
        throw invalidRequest(`Invalid '${param}.format': a grammar needs syntax 'lark' or 'regex' and a string definition.`, `${param}.format`, 'invalid_value');
      }
      description += `${description === '' ? '' : '\n\n'}The input must follow this ${syntax} grammar:\n${definition}`;
    }
  }
  description += `${description === '' ? '' : '\n\n'}Freeform tool: write the whole input, as plain text, in the string argument '${CUSTOM_TOOL_INPUT}'.`;
  const spec: FunctionToolSpec = {
    type: 'function',
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: { [CUSTOM_TOOL_INPUT]: { type: 'string', description: `The input to ${name}.` } },
      required: [CUSTOM_TOOL_INPUT],
      additionalProperties: false,
    },
  };
  // A freeform tool is always the client's: it has its own input format.
  return { spec, param, index, definition: 'with-parameters', kind: 'custom' };
}

function hostedToolType(type: unknown, param: string): never {
  const name = typeof type === 'string' ? type : JSON.stringify(type ?? null);
  const hint = typeof type === 'string' ? HOSTED_TOOL_HINTS[type] : undefined;
  throw unsupported(
    `The tool type '${name}' ('${param}')`,
    `${param}.type`,
    `This gateway serves tools of type 'function', 'custom' and 'namespace'; remove it from 'tools'.${hint === undefined ? '' : ` ${hint}`}`,
  );
}

/**
 * Validates the Responses `tools` array: `function` tools (with `strict`), `custom`
 * (freeform) tools as a function with one string argument, and `namespace` tools flattened
 * into their functions. Hosted tool types (`web_search`, `file_search`, …) are a 400 naming them.
 */
export function parseResponsesTools(raw: unknown): ResponsesTool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest("Invalid 'tools': expected an array of tool objects.", 'tools', 'invalid_type');
  const tools: ResponsesTool[] = [];
  const add = (tool: ResponsesTool): void => {
    if (tools.some((t) => t.spec.name === tool.spec.name)) {
      throw invalidRequest(`Invalid 'tools': the tool name '${tool.spec.name}' is used more than once ('${tool.param}'). Tool names must be unique.`, 'tools', 'duplicate_value');
    }
    tools.push(tool);
  };
  raw.forEach((entry: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(entry)) throw invalidRequest(`Invalid '${at}': expected an object.`, at, 'invalid_type');
    switch (entry.type) {
      case 'function':
        add(functionTool(entry, at, i));
        return;
      case 'custom':
        add(customTool(entry, at, i));
        return;
      case 'namespace': {
        const namespace = nameOf(entry, at);
        if (!Array.isArray(entry.tools)) throw invalidRequest(`Invalid '${at}.tools': expected an array of tools.`, `${at}.tools`, 'invalid_type');
        entry.tools.forEach((inner: unknown, j) => {
          const innerAt = `${at}.tools[${j}]`;
          if (!isObject(inner)) throw invalidRequest(`Invalid '${innerAt}': expected an object.`, innerAt, 'invalid_type');
          if (inner.type === 'function') add({ ...functionTool(inner, innerAt, i), namespace });
          else if (inner.type === 'custom') add({ ...customTool(inner, innerAt, i), namespace });
          else hostedToolType(inner.type, innerAt);
        });
        return;
      }
      default:
        hostedToolType(entry.type, at);
    }
  });
  if (tools.length > MAX_TOOLS) {
    throw invalidRequest(
      `Invalid 'tools': array too long. Expected at most ${MAX_TOOLS} tools, but got ${tools.length}.`,
      'tools',
      'array_above_max_length',
    );
  }
  return tools;
}

function requireKnownTool(name: unknown, tools: ResponsesTool[], param: string): string {
  if (typeof name !== 'string') throw invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  if (!tools.some((t) => t.spec.name === name)) {
    const names = tools.map((t) => t.spec.name).join(', ') || '(none)';
    throw invalidRequest(`Invalid '${param}': tool '${name}' is not in 'tools' (offered: ${names}).`, param, 'invalid_value');
  }
  return name;
}

/** What `tool_choice` asks for, and (with `allowed_tools`) the tools the model may call. */
export interface ResponsesToolChoice {
  toolChoice?: ToolChoice;
  tools: ResponsesTool[];
}

/**
 * Validates `tool_choice`: `auto`, `none`, `required`, `{ type: 'function' | 'custom', name }`
 * or `{ type: 'allowed_tools', mode, tools }` (which narrows `tools`). Hosted tool choices are a 400.
 */
export function parseResponsesToolChoice(raw: unknown, tools: ResponsesTool[]): ResponsesToolChoice {
  if (raw === undefined || raw === null) return { tools };
  if (raw === 'auto' || raw === 'none' || raw === 'required') {
    if (raw === 'required' && tools.length === 0) {
      throw invalidRequest("Invalid value for 'tool_choice': 'required' needs at least one tool in 'tools'.", 'tool_choice', 'invalid_value');
    }
    return { toolChoice: raw, tools };
  }
  if (typeof raw === 'string') {
    throw invalidRequest(`Invalid value for 'tool_choice': ${JSON.stringify(raw)}. Expected 'none', 'auto' or 'required'.`, 'tool_choice', 'invalid_value');
  }
  if (!isObject(raw)) throw invalidRequest("Invalid 'tool_choice': expected a string or an object.", 'tool_choice', 'invalid_type');
  switch (raw.type) {
    case 'function':
    case 'custom': {
      const name = requireKnownTool(raw.name, tools, 'tool_choice.name');
      return { toolChoice: { type: 'tool', name }, tools };
    }
    case 'allowed_tools': {
      const mode = raw.mode;
      if (mode !== 'auto' && mode !== 'required') {
        throw invalidRequest("Invalid 'tool_choice.mode': expected 'auto' or 'required'.", 'tool_choice.mode', 'invalid_value');
      }
      if (!Array.isArray(raw.tools) || raw.tools.length === 0) {
        throw invalidRequest("Invalid 'tool_choice.tools': expected a non-empty array of { type: 'function', name }.", 'tool_choice.tools', 'invalid_value');
      }
      const names = new Set<string>();
      raw.tools.forEach((entry: unknown, i) => {
        const at = `tool_choice.tools[${i}]`;
        if (!isObject(entry) || (entry.type !== 'function' && entry.type !== 'custom')) {
          throw unsupported(`Allowed tools other than functions and custom tools ('${at}')`, at, "List only { type: 'function', name } entries.");
        }
        names.add(requireKnownTool(entry.name, tools, `${at}.name`));
      });
      return { toolChoice: mode, tools: tools.filter((t) => names.has(t.spec.name)) };
    }
    default:
      throw unsupported(
        `The tool choice ${JSON.stringify(raw.type ?? null)}`,
        'tool_choice.type',
        "Use 'auto', 'none', 'required', { type: 'function', name } or { type: 'allowed_tools', mode, tools }.",
      );
  }
}
