import type { Message, ResponseFormat } from '@toolwire/core';
import { invalidRequest } from './gateway-error.ts';
import { parseResponsesInput } from './parse-responses-input.ts';
import type { StoredResponses } from './parse-responses-input.ts';
import { parseResponsesToolChoice, parseResponsesTools } from './parse-responses-tools.ts';
import type { ParsedResponsesRequest, ResponsesEcho } from './parsed-responses-request.ts';
import { isObject, parseModelName, unsupported } from './request-fields.ts';
import type { Json } from './request-fields.ts';

/** The gateway's stored responses, as the parser needs them. */
export interface ResponsesHistory extends StoredResponses {
  /** The whole conversation of a stored response (its input and its output), or undefined. */
  conversation(id: string): readonly Message[] | undefined;
}

/** Options of `parseResponsesRequest`. */
export interface ParseResponsesOptions {
  /** The caller's stored responses (`previous_response_id`, `item_reference`); without it both are a 400. */
  history?: ResponsesHistory;
}

// Fields that ask for what the gateway cannot do: refused by name, never dropped.
function rejectUnsupportedFields(body: Json): void {
  if (body.background === true) {
    throw unsupported('Background responses', 'background', "Leave out 'background' (or send false) and wait for the answer, or stream it.");
  }
  if (body.conversation !== undefined && body.conversation !== null) {
    throw unsupported('Conversations', 'conversation', "Send the items yourself, or use 'previous_response_id'.");
  }
  if (body.prompt !== undefined && body.prompt !== null) {
    throw unsupported('Prompt templates', 'prompt', "Send 'instructions' and 'input' instead.");
  }
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.top_logprobs !== 0) {
    throw unsupported('Log probabilities', 'top_logprobs', "Leave out 'top_logprobs'.");
  }
  if (body.max_tool_calls !== undefined && body.max_tool_calls !== null) {
    throw unsupported("'max_tool_calls'", 'max_tool_calls', "Leave it out; use 'parallel_tool_calls: false' for one call per turn.");
  }
}

function optionalNumber(body: Json, key: string, options: { min: number; max: number; integer?: boolean }): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < options.min || value > options.max || (options.integer === true && !Number.isInteger(value))) {
    throw invalidRequest(`Invalid '${key}': expected ${options.integer === true ? 'an integer' : 'a number'} between ${options.min} and ${options.max}.`, key, 'invalid_type');
  }
  return value;
}

function optionalString(body: Json, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`Invalid '${key}': expected a string.`, key, 'invalid_type');
  return value;
}

function optionalBoolean(body: Json, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidRequest(`Invalid '${key}': expected a boolean.`, key, 'invalid_type');
  return value;
}

/** `text.format` → core's response format. */
function parseTextFormat(text: unknown): ResponseFormat | undefined {
  if (text === undefined || text === null) return undefined;
  if (!isObject(text)) throw invalidRequest("Invalid 'text': expected an object.", 'text', 'invalid_type');
  const format = text.format;
  if (format === undefined || format === null) return undefined;
  if (!isObject(format)) throw invalidRequest("Invalid 'text.format': expected an object.", 'text.format', 'invalid_type');
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      if (typeof format.name !== 'string' || format.name === '') {
        throw invalidRequest("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter');
      }
      if (!isObject(format.schema)) throw invalidRequest("Missing required parameter: 'text.format.schema'.", 'text.format.schema', 'missing_required_parameter');
      const result: ResponseFormat = { type: 'json', name: format.name, schema: format.schema };
      if (typeof format.description === 'string') result.description = format.description;
      return result;
    }
    default:
      throw invalidRequest("Invalid 'text.format.type': expected 'text', 'json_object' or 'json_schema'.", 'text.format.type', 'invalid_value');
  }
}

function parseMetadata(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw invalidRequest("Invalid 'metadata': expected an object of string values.", 'metadata', 'invalid_type');
  const entries = Object.entries(raw);
  if (entries.length > 16) throw invalidRequest("Invalid 'metadata': at most 16 keys.", 'metadata', 'invalid_value');
  const metadata: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (typeof value !== 'string' || key.length > 64 || value.length > 512) {
      throw invalidRequest(`Invalid 'metadata.${key}': keys up to 64 characters, string values up to 512.`, `metadata.${key}`, 'invalid_value');
    }
    metadata[key] = value;
  }
  return metadata;
}

function parseReasoning(raw: unknown): ResponsesEcho['reasoning'] {
  if (raw === undefined || raw === null) return { effort: null, summary: null };
  if (!isObject(raw)) throw invalidRequest("Invalid 'reasoning': expected an object.", 'reasoning', 'invalid_type');
  const effort = typeof raw.effort === 'string' ? raw.effort : null;
  const summary = typeof raw.summary === 'string' ? raw.summary : typeof raw.generate_summary === 'string' ? raw.generate_summary : null;
  return { effort, summary };
}

function parseInclude(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (!Array.isArray(raw) || !raw.every((v) => typeof v === 'string')) {
    throw invalidRequest("Invalid 'include': expected an array of strings.", 'include', 'invalid_type');
  }
}

/**
 * Validates a `POST /v1/responses` body (already JSON-parsed) and maps it to core's shapes:
 * `instructions` and `input` to messages, `tools` to functions (see `parseResponsesTools`),
 * `tool_choice`, `parallel_tool_calls`, `max_output_tokens`, `temperature`, `top_p` and
 * `text.format` to core's settings. `reasoning`, `include`, `metadata`, `prompt_cache_key`,
 * `user`, `service_tier`, `truncation` and `store` are accepted and echoed.
 * `previous_response_id` and `item_reference` items are read from `options.history`.
 * Throws a `GatewayError` (400, OpenAI envelope) naming the first problem.
 */
export function parseResponsesRequest(body: unknown, options: ParseResponsesOptions = {}): ParsedResponsesRequest {
  if (!isObject(body)) throw invalidRequest('The request body must be a JSON object.', null, 'invalid_type');
  const model = parseModelName(body);
  rejectUnsupportedFields(body);

  const instructions = optionalString(body, 'instructions');
  const previousId = optionalString(body, 'previous_response_id');
  let history: readonly Message[] | undefined;
  if (previousId !== undefined) {
    history = options.history?.conversation(previousId);
    if (history === undefined) {
      throw invalidRequest(
        `Previous response with id '${previousId}' not found. This gateway keeps responses stored (store not false) for one hour, for the API key that made them; send the whole conversation in 'input' instead.`,
        'previous_response_id',
        'previous_response_not_found',
      );
    }
  }
  const input = parseResponsesInput(body.input, { ...(history === undefined ? {} : { history }), ...(options.history === undefined ? {} : { stored: options.history }) });
  // Instructions of a previous response are not carried over (as on OpenAI): they lead this request only.
  const messages: Message[] = instructions === undefined || instructions === '' ? input : [{ role: 'system', content: instructions }, ...input];

  const stream = optionalBoolean(body, 'stream') ?? false;
  if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
    throw invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', 'invalid_value');
  }
  const declared = parseResponsesTools(body.tools);
  const choice = parseResponsesToolChoice(body.tool_choice, declared);
  const parallel = optionalBoolean(body, 'parallel_tool_calls');
  const maxOutputTokens = optionalNumber(body, 'max_output_tokens', { min: 1, max: 2 ** 31, integer: true });
  const temperature = optionalNumber(body, 'temperature', { min: 0, max: 2 });
  const topP = optionalNumber(body, 'top_p', { min: 0, max: 1 });
  const responseFormat = parseTextFormat(body.text);
  parseInclude(body.include);
  const truncation = body.truncation ?? 'disabled';
  if (truncation !== 'auto' && truncation !== 'disabled') {
    throw invalidRequest("Invalid 'truncation': expected 'auto' or 'disabled'.", 'truncation', 'invalid_value');
  }

  const echo: ResponsesEcho = {
    instructions: instructions ?? null,
    tools: Array.isArray(body.tools) ? body.tools : [],
    tool_choice: body.tool_choice ?? 'auto',
    parallel_tool_calls: parallel ?? true,
    max_output_tokens: maxOutputTokens ?? null,
    temperature: temperature ?? null,
    top_p: topP ?? null,
    text: { format: isObject(body.text) && isObject(body.text.format) ? body.text.format : { type: 'text' }, ...(isObject(body.text) && typeof body.text.verbosity === 'string' ? { verbosity: body.text.verbosity } : {}) },
    reasoning: parseReasoning(body.reasoning),
    metadata: parseMetadata(body.metadata),
    prompt_cache_key: optionalString(body, 'prompt_cache_key') ?? null,
    store: optionalBoolean(body, 'store') ?? true,
    truncation,
    user: optionalString(body, 'user') ?? null,
    service_tier: optionalString(body, 'service_tier') ?? 'default',
    previous_response_id: previousId ?? null,
  };

  const parsed: ParsedResponsesRequest = { model, stream, messages, tools: choice.tools, echo };
  if (choice.toolChoice !== undefined) parsed.toolChoice = choice.toolChoice;
  if (parallel !== undefined) parsed.parallelToolCalls = parallel;
  if (maxOutputTokens !== undefined) parsed.maxOutputTokens = maxOutputTokens;
  if (temperature !== undefined) parsed.temperature = temperature;
  if (topP !== undefined) parsed.topP = topP;
  if (responseFormat !== undefined) parsed.responseFormat = responseFormat;
  return parsed;
}
