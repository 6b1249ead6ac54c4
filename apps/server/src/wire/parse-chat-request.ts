import type { FunctionToolSpec, JsonSchema, Message, ResponseFormat, ToolCall, ToolChoice, UserContentPart } from '@toolwire/core';
import { checkJsonDepth } from './check-json-depth.ts';
import type { GatewayError } from './gateway-error.ts';
import { invalidRequest } from './gateway-error.ts';
import type { ParsedChatRequest } from './parsed-chat-request.ts';

/** OpenAI's limit on `tools` (and on `tool_calls` in one message). */
export const MAX_TOOLS = 128;

const TOOL_NAME_MAX = 64;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `^[a-zA-Z0-9_-]{1,64}$`, checked with a plain loop. */
export function isValidToolName(name: string): boolean {
  if (name.length === 0 || name.length > TOOL_NAME_MAX) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok =
      (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 /* _ */ || c === 45; /* - */
    if (!ok) return false;
  }
  return true;
}

function unsupported(feature: string, param: string, hint: string): GatewayError {
  return invalidRequest(`${feature} is not supported by this gateway. ${hint}`, param, 'unsupported_value');
}

// Fields that ask for a feature the gateway cannot honour: refused by name, never dropped.
function rejectUnsupportedFields(body: Json): void {
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    throw unsupported("'n' other than 1", 'n', 'Send one request per completion you need.');
  }
  if (body.functions !== undefined && body.functions !== null) {
    throw unsupported("The deprecated 'functions' parameter", 'functions', "Send the same definitions as 'tools' with type 'function'.");
  }
  if (body.function_call !== undefined && body.function_call !== null) {
    throw unsupported("The deprecated 'function_call' parameter", 'function_call', "Use 'tool_choice' instead.");
  }
  if (body.audio !== undefined && body.audio !== null) {
    throw unsupported('Audio output', 'audio', "Remove 'audio' from the request.");
  }
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text')) {
    throw unsupported('Output modalities other than text', 'modalities', "Send modalities: ['text'] or leave it out.");
  }
  if (body.logprobs === true || (body.top_logprobs !== undefined && body.top_logprobs !== null)) {
    throw unsupported('Log probabilities', body.logprobs === true ? 'logprobs' : 'top_logprobs', 'Remove logprobs/top_logprobs.');
  }
  if (body.logit_bias !== undefined && body.logit_bias !== null) {
    throw unsupported("'logit_bias'", 'logit_bias', 'Remove it from the request.');
  }
  if (body.web_search_options !== undefined && body.web_search_options !== null) {
    throw unsupported('Web search', 'web_search_options', "Remove 'web_search_options', or offer a fetch tool instead.");
  }
  if (body.prediction !== undefined && body.prediction !== null) {
    throw unsupported('Predicted outputs', 'prediction', "Remove 'prediction' from the request.");
  }
}

function optionalNumber(body: Json, key: string, options: { min: number; max: number; integer?: boolean }): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < options.min || value > options.max) {
    throw invalidRequest(`Invalid '${key}': expected a number between ${options.min} and ${options.max}.`, key, 'invalid_type');
  }
  if (options.integer === true && !Number.isInteger(value)) {
    throw invalidRequest(`Invalid '${key}': expected an integer.`, key, 'invalid_type');
  }
  return value;
}

function parseTools(raw: unknown): FunctionToolSpec[] | undefined {
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
  const tools: FunctionToolSpec[] = [];
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
        `Invalid '${at}.function.name': ${JSON.stringify(name ?? null)} does not match '^[a-zA-Z0-9_-]{1,64}$'. Use letters, digits, '_' and '-' only.`,
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
      inputSchema = parameters.type === undefined ? { type: 'object', ...parameters } : (parameters);
    }
    if (fn.description !== undefined && fn.description !== null && typeof fn.description !== 'string') {
      throw invalidRequest(`Invalid '${at}.function.description': expected a string.`, `${at}.function.description`, 'invalid_type');
    }
    const tool: FunctionToolSpec = { type: 'function', name, inputSchema };
    if (typeof fn.description === 'string') tool.description = fn.description;
    if (fn.strict === true) tool.strict = true;
    tools.push(tool);
  });
  return tools;
}

function namedToolOf(choice: Json, param: string): string {
  const fn = choice.function;
  if (!isObject(fn) || typeof fn.name !== 'string') {
    throw invalidRequest(`Missing required parameter: '${param}.function.name'.`, `${param}.function.name`, 'missing_required_parameter');
  }
  return fn.name;
}

function requireKnownTool(name: string, tools: FunctionToolSpec[], param: string): void {
  if (!tools.some((t) => t.name === name)) {
    const names = tools.map((t) => t.name).join(', ');
    throw invalidRequest(`Invalid '${param}': tool '${name}' is not in 'tools' (offered: ${names}).`, param, 'invalid_value');
  }
}

interface ParsedChoice {
  toolChoice?: ToolChoice;
  /** Set by `allowed_tools`: the subset of tools the model may call. */
  tools?: FunctionToolSpec[];
}

function parseToolChoice(raw: unknown, tools: FunctionToolSpec[] | undefined): ParsedChoice {
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
      return { toolChoice: mode, tools: tools.filter((t) => names.has(t.name)) };
    }
    default:
      throw invalidRequest("Invalid 'tool_choice.type': expected 'function' or 'allowed_tools'.", 'tool_choice.type', 'invalid_value');
  }
}

function textOfParts(parts: unknown[], param: string, allowRefusal: boolean): string {
  let text = '';
  parts.forEach((part: unknown, i) => {
    if (!isObject(part)) throw invalidRequest(`Invalid '${param}[${i}]': expected a content part object.`, `${param}[${i}]`, 'invalid_type');
    if (part.type === 'text' && typeof part.text === 'string') text += part.text;
    else if (allowRefusal && part.type === 'refusal' && typeof part.refusal === 'string') text += part.refusal;
    else throw invalidRequest(`Invalid '${param}[${i}]': only text parts are supported here.`, `${param}[${i}]`, 'invalid_value');
  });
  return text;
}

function parseUserContent(content: unknown, param: string): string | UserContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest(`Invalid '${param}': expected a string or an array of content parts.`, param, 'invalid_type');
  return content.map((part: unknown, i): UserContentPart => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw invalidRequest(`Invalid '${at}': expected a content part object.`, at, 'invalid_type');
    if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.type === 'image_url') {
      const image = part.image_url;
      const url = isObject(image) ? image.url : undefined;
      if (typeof url !== 'string') throw invalidRequest(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`, 'missing_required_parameter');
      return { type: 'image', image: url };
    }
    throw unsupported(`Content parts of type ${JSON.stringify(part.type ?? null)}`, `${at}.type`, "Send 'text' or 'image_url' parts.");
  });
}

function parseHistoryCall(raw: unknown, param: string): ToolCall {
  if (!isObject(raw)) throw invalidRequest(`Invalid '${param}': expected a tool call object.`, param, 'invalid_type');
  if (typeof raw.id !== 'string' || raw.id === '') throw invalidRequest(`Missing required parameter: '${param}.id'.`, `${param}.id`, 'missing_required_parameter');
  if (raw.type !== undefined && raw.type !== null && raw.type !== 'function') {
    throw unsupported(`Tool calls of type ${JSON.stringify(raw.type)}`, `${param}.type`, "Only 'function' calls can be replayed.");
  }
  const fn = raw.function;
  if (!isObject(fn) || typeof fn.name !== 'string') {
    throw invalidRequest(`Missing required parameter: '${param}.function.name'.`, `${param}.function.name`, 'missing_required_parameter');
  }
  const rawArgs = fn.arguments;
  let args: Record<string, unknown> = {};
  // `""` (and a missing value) in replayed history means no arguments.
  if (typeof rawArgs === 'string' && rawArgs.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawArgs);
    } catch {
      throw invalidRequest(`Invalid '${param}.function.arguments': not valid JSON. Send the arguments as a JSON object string.`, `${param}.function.arguments`, 'invalid_value');
    }
    if (!isObject(parsed)) {
      throw invalidRequest(`Invalid '${param}.function.arguments': expected a JSON object.`, `${param}.function.arguments`, 'invalid_value');
    }
    args = parsed;
  } else if (isObject(rawArgs)) {
    args = rawArgs;
  } else if (rawArgs !== undefined && rawArgs !== null && rawArgs !== '' && typeof rawArgs !== 'string') {
    throw invalidRequest(`Invalid '${param}.function.arguments': expected a JSON string.`, `${param}.function.arguments`, 'invalid_type');
  }
  return { id: raw.id, name: fn.name, arguments: args };
}

function parseMessages(raw: unknown): Message[] {
  if (raw === undefined || raw === null) throw invalidRequest("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(raw)) throw invalidRequest("Invalid 'messages': expected an array of messages.", 'messages', 'invalid_type');
  if (raw.length === 0) throw invalidRequest("Invalid 'messages': empty array. Expected an array with minimum length 1.", 'messages', 'empty_array');

  const messages: Message[] = [];
  // Calls waiting for their tool message, by id → index of the assistant message.
  const open = new Map<string, number>();
  let openSince = -1;
  const checkAnswered = (): void => {
    if (open.size === 0) return;
    const ids = [...open.keys()].join(', ');
    throw invalidRequest(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`,
      `messages.[${openSince}].tool_calls`,
      'invalid_value',
    );
  };

  raw.forEach((entry: unknown, i) => {
    const at = `messages.[${i}]`;
    if (!isObject(entry)) throw invalidRequest(`Invalid '${at}': expected a message object.`, at, 'invalid_type');
    const role = entry.role;
    if (role !== 'tool') checkAnswered();
    switch (role) {
      case 'system':
      case 'developer': {
        const content = entry.content;
        const text = typeof content === 'string' ? content : Array.isArray(content) ? textOfParts(content, `${at}.content`, false) : undefined;
        if (text === undefined) throw invalidRequest(`Invalid '${at}.content': expected a string.`, `${at}.content`, 'invalid_type');
        messages.push({ role: 'system', content: text });
        return;
      }
      case 'user':
        messages.push({ role: 'user', content: parseUserContent(entry.content, `${at}.content`) });
        return;
      case 'assistant': {
        // Replayed assistant messages may carry `refusal: null`, `annotations`, `audio: null`, `parsed`…: ignored.
        const content = entry.content;
        let text = '';
        if (typeof content === 'string') text = content;
        else if (Array.isArray(content)) text = textOfParts(content, `${at}.content`, true);
        else if (content !== undefined && content !== null) throw invalidRequest(`Invalid '${at}.content': expected a string or null.`, `${at}.content`, 'invalid_type');
        const rawCalls = entry.tool_calls;
        let toolCalls: ToolCall[] | undefined;
        if (Array.isArray(rawCalls) && rawCalls.length > 0) {
          if (rawCalls.length > MAX_TOOLS) throw invalidRequest(`Invalid '${at}.tool_calls': more than ${MAX_TOOLS} calls.`, `${at}.tool_calls`, 'array_above_max_length');
          toolCalls = rawCalls.map((call: unknown, j) => parseHistoryCall(call, `${at}.tool_calls[${j}]`));
          for (const call of toolCalls) open.set(call.id, i);
          openSince = i;
        } else if (rawCalls !== undefined && rawCalls !== null && !Array.isArray(rawCalls)) {
          throw invalidRequest(`Invalid '${at}.tool_calls': expected an array.`, `${at}.tool_calls`, 'invalid_type');
        }
        messages.push(toolCalls ? { role: 'assistant', content: text, toolCalls } : { role: 'assistant', content: text });
        return;
      }
      case 'tool': {
        const id = entry.tool_call_id;
        if (typeof id !== 'string' || !open.has(id)) {
          throw invalidRequest(
            "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'" +
              (typeof id === 'string' ? ` (no open call has the id '${id}').` : '.'),
            `${at}.role`,
            'invalid_value',
          );
        }
        const callIndex = open.get(id) ?? -1;
        open.delete(id);
        const assistant = messages.findLast((m, k) => k <= callIndex && m.role === 'assistant');
        const toolName = assistant?.role === 'assistant' ? assistant.toolCalls?.find((c) => c.id === id)?.name : undefined;
        const content = entry.content;
        const text = typeof content === 'string' ? content : Array.isArray(content) ? textOfParts(content, `${at}.content`, false) : undefined;
        if (text === undefined) throw invalidRequest(`Invalid '${at}.content': expected a string.`, `${at}.content`, 'invalid_type');
        messages.push(toolName === undefined ? { role: 'tool', toolCallId: id, content: text } : { role: 'tool', toolCallId: id, toolName, content: text });
        return;
      }
      case 'function':
        throw unsupported("Messages with the deprecated role 'function'", `${at}.role`, "Use role 'tool' with a 'tool_call_id'.");
      default:
        throw invalidRequest(
          `Invalid '${at}.role': ${JSON.stringify(role ?? null)}. Expected 'system', 'developer', 'user', 'assistant' or 'tool'.`,
          `${at}.role`,
          'invalid_value',
        );
    }
  });
  checkAnswered();
  return messages;
}

function parseStop(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw) && raw.length <= 4 && raw.every((s) => typeof s === 'string')) return raw;
  throw invalidRequest("Invalid 'stop': expected a string or an array of up to 4 strings.", 'stop', 'invalid_type');
}

function parseResponseFormat(raw: unknown): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalidRequest("Invalid 'response_format': expected an object.", 'response_format', 'invalid_type');
  switch (raw.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      const spec = raw.json_schema;
      if (!isObject(spec) || typeof spec.name !== 'string') {
        throw invalidRequest("Missing required parameter: 'response_format.json_schema.name'.", 'response_format.json_schema.name', 'missing_required_parameter');
      }
      const format: ResponseFormat = { type: 'json', name: spec.name };
      if (isObject(spec.schema)) format.schema = spec.schema;
      if (typeof spec.description === 'string') format.description = spec.description;
      return format;
    }
    default:
      throw invalidRequest("Invalid 'response_format.type': expected 'text', 'json_object' or 'json_schema'.", 'response_format.type', 'invalid_value');
  }
}

/**
 * Validates a Chat Completions request body (already JSON-parsed) and maps it to core's
 * shapes. Throws a `GatewayError` (400, OpenAI envelope) naming the first problem.
 */
export function parseChatRequest(body: unknown): ParsedChatRequest {
  checkJsonDepth(body);
  if (!isObject(body)) throw invalidRequest('The request body must be a JSON object.', null, 'invalid_type');
  const model = body.model;
  if (model === undefined || model === null || model === '') {
    throw invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  }
  if (typeof model !== 'string') throw invalidRequest("Invalid 'model': expected a string.", 'model', 'invalid_type');
  const messages = parseMessages(body.messages);
  rejectUnsupportedFields(body);

  const stream = body.stream === true;
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw invalidRequest("Invalid 'stream': expected a boolean.", 'stream', 'invalid_type');
  }
  let includeUsage = false;
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (!stream) {
      throw invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', 'invalid_value');
    }
    if (!isObject(body.stream_options)) throw invalidRequest("Invalid 'stream_options': expected an object.", 'stream_options', 'invalid_type');
    includeUsage = body.stream_options.include_usage === true;
  }

  const declared = parseTools(body.tools);
  const choice = parseToolChoice(body.tool_choice, declared);
  const parsed: ParsedChatRequest = { model, stream, includeUsage, messages, tools: choice.tools ?? declared ?? [] };
  if (choice.toolChoice !== undefined) parsed.toolChoice = choice.toolChoice;

  const parallel = body.parallel_tool_calls;
  if (typeof parallel === 'boolean') parsed.parallelToolCalls = parallel;
  else if (parallel !== undefined && parallel !== null) {
    throw invalidRequest("Invalid 'parallel_tool_calls': expected a boolean.", 'parallel_tool_calls', 'invalid_type');
  }
  const maxTokens =
    optionalNumber(body, 'max_completion_tokens', { min: 1, max: 2 ** 31, integer: true }) ??
    optionalNumber(body, 'max_tokens', { min: 1, max: 2 ** 31, integer: true });
  if (maxTokens !== undefined) parsed.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(body, 'temperature', { min: 0, max: 2 });
  if (temperature !== undefined) parsed.temperature = temperature;
  const topP = optionalNumber(body, 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) parsed.topP = topP;
  const seed = optionalNumber(body, 'seed', { min: -(2 ** 63), max: 2 ** 63, integer: true });
  if (seed !== undefined) parsed.seed = seed;
  const stop = parseStop(body.stop);
  if (stop !== undefined) parsed.stop = stop;
  const responseFormat = parseResponseFormat(body.response_format);
  if (responseFormat !== undefined) parsed.responseFormat = responseFormat;
  return parsed;
}
