import type { ResponseFormat } from '@toolwire/core';
import { checkJsonDepth } from './check-json-depth.ts';
import { invalidRequest } from './gateway-error.ts';
import { parseMessages } from './parse-chat-messages.ts';
import { parseChatTools } from './parse-chat-tools.ts';
import type { ParsedChatRequest } from './parsed-chat-request.ts';
import { isObject, parseModelName, unsupported } from './request-fields.ts';
import type { Json } from './request-fields.ts';

export { MAX_TOOLS } from './parse-chat-tools.ts';

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
  const model = parseModelName(body);
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

  const { tools, toolChoice } = parseChatTools(body);
  const parsed: ParsedChatRequest = { model, stream, includeUsage, messages, tools };
  if (toolChoice !== undefined) parsed.toolChoice = toolChoice;

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
