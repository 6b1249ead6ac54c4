import { isValidToolName, TOOL_NAME_RULE } from '@toolwire/core';
import type { FunctionToolSpec, JsonSchema, ToolChoice } from '@toolwire/core';
import { checkToolSchema } from './check-tool-schema.ts';
import { invalidRequest } from './gateway-error.ts';
import type { ParsedTool } from './parsed-chat-request.ts';
import { isObject, unsupported } from './request-fields.ts';
import type { Json } from './request-fields.ts';

/** OpenAI's limit on `tools` (and on `tool_calls` in one message). */
export const MAX_TOOLS = 128;

function parseTools(raw: unknown): ParsedTool[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalidRequest("Invalid 'tools': expected an array of tool objects.", 'tools', 'invalid_type');
  if (raw.length === 0) {
    throw invalidRequest("Invalid 'tools': empty array. Expected an array with minimum length 1; leave 'tools' out to offer none.", 'tools', 'empty_array');
  }
  if (raw.length > MAX_TOOLS) {
    throw invalidRequest(
      `Invalid 'tools': array too long. Expected an array with maximum length ${MAX_TOOLS}, but got an array with length ${raw.length} instead.`,
      'tools',
      'array_above_max_length',
    );
  }
  const tools: ParsedTool[] = [];
  const seen = new Set<string>();
  raw.forEach((entry: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(entry)) throw invalidRequest(`Invalid '${at}': expected an object.`, at, 'invalid_type');
    if (entry.type === 'custom') {
      throw unsupported(`Custom tools ('${at}' has type 'custom')`, `${at}.type`, "Offer it as a tool with type 'function' and a JSON Schema instead.");
    }
    if (entry.type !== 'function') {
      throw invalidRequest(`Invalid '${at}.type': expected 'function'.`, `${at}.type`, 'invalid_value');
    }
    const fn = entry.function;
    if (!isObject(fn)) {
      throw invalidRequest(`Missing required parameter: '${at}.function'.`, `${at}.function`, 'missing_required_parameter');
    }
    const name = fn.name;
    if (typeof name !== 'string' || !isValidToolName(name)) {
      throw invalidRequest(
        `Invalid '${at}.function.name': ${JSON.stringify(name ?? null)} does not match '${TOOL_NAME_RULE.pattern}'. Use ${TOOL_NAME_RULE.description}.`,
        `${at}.function.name`,
        'invalid_value',
      );
    }
    if (seen.has(name)) {
      throw invalidRequest(`Invalid 'tools': the function name '${name}' is used more than once. Tool names must be unique.`, 'tools', 'duplicate_value');
    }
    seen.add(name);
    const parameters = fn.parameters;
    let inputSchema: JsonSchema = { type: 'object', properties: {} };
    if (parameters !== undefined && parameters !== null) {
      if (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== 'object')) {
        throw invalidRequest(
          `Invalid schema for function '${name}': the parameters must be a JSON Schema of type 'object'.`,
          `${at}.function.parameters`,
          'invalid_function_parameters',
        );
      }
      const shapeError = checkToolSchema(parameters, name, `${at}.function.parameters`);
      if (shapeError !== undefined) throw shapeError;
      inputSchema = parameters.type === undefined ? { type: 'object', ...parameters } : parameters;
    }
    if (fn.description !== undefined && fn.description !== null && typeof fn.description !== 'string') {
      throw invalidRequest(`Invalid '${at}.function.description': expected a string.`, `${at}.function.description`, 'invalid_type');
    }
    const spec: FunctionToolSpec = { type: 'function', name, inputSchema };
    if (typeof fn.description === 'string') spec.description = fn.description;
    if (fn.strict === true) spec.strict = true;
    tools.push({ spec, index: i, definition: definitionOf(fn) });
  });
  return tools;
}

/** How much of a function the client wrote: the rule for server tools reads this (see `ParsedTool`). */
function definitionOf(fn: Json): ParsedTool['definition'] {
  const given = (value: unknown): boolean => value !== undefined && value !== null;
  if (given(fn.parameters)) return 'with-parameters';
  if (given(fn.description) || fn.strict === true) return 'without-parameters';
  return 'name-only';
}

function namedToolOf(choice: Json, param: string): string {
  const fn = choice.function;
  if (!isObject(fn) || typeof fn.name !== 'string') {
    throw invalidRequest(`Missing required parameter: '${param}.function.name'.`, `${param}.function.name`, 'missing_required_parameter');
  }
  return fn.name;
}

function requireKnownTool(name: string, tools: ParsedTool[], param: string): void {
  if (!tools.some((t) => t.spec.name === name)) {
    const names = tools.map((t) => t.spec.name).join(', ');
    throw invalidRequest(`Invalid '${param}': tool '${name}' is not in 'tools' (offered: ${names}).`, param, 'invalid_value');
  }
}

interface ParsedChoice {
  toolChoice?: ToolChoice;
  /** Set by `allowed_tools`: the subset of tools the model may call. */
  tools?: ParsedTool[];
}

function parseToolChoice(raw: unknown, tools: ParsedTool[] | undefined): ParsedChoice {
  // `tool_choice: null` means the same as leaving it out.
  if (raw === undefined || raw === null) return {};
  if (tools === undefined) {
    throw invalidRequest("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice', 'invalid_value');
  }
  if (typeof raw === 'string') {
    if (raw === 'none' || raw === 'auto' || raw === 'required') return { toolChoice: raw };
    throw invalidRequest(`Invalid value for 'tool_choice': '${raw}'. Expected 'none', 'auto', 'required' or a named function.`, 'tool_choice', 'invalid_value');
  }
  if (!isObject(raw)) {
    throw invalidRequest("Invalid 'tool_choice': expected a string or an object.", 'tool_choice', 'invalid_type');
  }
  switch (raw.type) {
    case 'function': {
      const name = namedToolOf(raw, 'tool_choice');
      requireKnownTool(name, tools, 'tool_choice.function.name');
      return { toolChoice: { type: 'tool', name } };
    }
    case 'custom':
      throw unsupported("Custom tools (tool_choice type 'custom')", 'tool_choice.type', "Name a tool with type 'function' instead.");
    case 'allowed_tools': {
      const allowed = raw.allowed_tools;
      if (!isObject(allowed) || !Array.isArray(allowed.tools) || allowed.tools.length === 0) {
        throw invalidRequest("Invalid 'tool_choice.allowed_tools': expected { mode, tools: [{ type: 'function', function: { name } }] }.", 'tool_choice.allowed_tools', 'invalid_value');
      }
      const mode = allowed.mode;
      if (mode !== 'auto' && mode !== 'required') {
        throw invalidRequest("Invalid 'tool_choice.allowed_tools.mode': expected 'auto' or 'required'.", 'tool_choice.allowed_tools.mode', 'invalid_value');
      }
      const names = new Set<string>();
      allowed.tools.forEach((entry: unknown, i) => {
        const param = `tool_choice.allowed_tools.tools[${i}]`;
        if (!isObject(entry) || entry.type !== 'function') {
          throw invalidRequest(`Invalid '${param}': expected { type: 'function', function: { name } }.`, param, 'invalid_value');
        }
        const name = namedToolOf(entry, param);
        requireKnownTool(name, tools, `${param}.function.name`);
        names.add(name);
      });
      return { toolChoice: mode, tools: tools.filter((t) => names.has(t.spec.name)) };
    }
    default:
      throw invalidRequest("Invalid 'tool_choice.type': expected 'function' or 'allowed_tools'.", 'tool_choice.type', 'invalid_value');
  }
}

/** The tools part of a request: the offered functions (after `allowed_tools`) and the choice. */
export interface ParsedChatTools {
  tools: ParsedTool[];
  toolChoice?: ToolChoice;
}

/**
 * Validates `tools` and `tool_choice` of a Chat Completions body (OpenAI's rules and
 * messages) and keeps, for each function, how much of it the client defined.
 */
export function parseChatTools(body: Json): ParsedChatTools {
  const declared = parseTools(body.tools);
  const choice = parseToolChoice(body.tool_choice, declared);
  const parsed: ParsedChatTools = { tools: choice.tools ?? declared ?? [] };
  if (choice.toolChoice !== undefined) parsed.toolChoice = choice.toolChoice;
  return parsed;
}
