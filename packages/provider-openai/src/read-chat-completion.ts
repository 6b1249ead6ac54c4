import { ProviderError } from '@toolwire/core';
import { readJsonBodyText } from '@toolwire/core/provider';
import { APIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { DEFAULT_END_GRACE_MS } from './openai-client-context.ts';

/** A JSON media type, as the SDK's own parser tells one (`application/json`, `…+json`). */
function isJsonMediaType(contentType: string | null): boolean {
  // What every server sends, told without taking the header apart.
  if (contentType?.startsWith('application/json') === true) return true;
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType.includes('application/json') || mediaType.endsWith('+json');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isOptionalString = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';

/**
 * One wire tool call as `mapChatResponse` reads it: a function call (its `arguments` may be
 * any JSON: llama.cpp once sent an object), or a custom tool's call it skips with a warning.
 */
function isToolCallShape(call: unknown): boolean {
  if (!isObject(call)) return false;
  if (call.type === 'custom') return isObject(call.custom) && typeof call.custom.name === 'string';
  // `type` may be missing: some compatible servers leave it out of their function calls.
  // An `id` that is not a string is replaced (see `mapChatResponse`).
  const fn = call.function;
  return isObject(fn) && typeof fn.name === 'string';
}

/**
 * What is wrong with a parsed body as a chat completion, in the fields `mapChatResponse`
 * reads (`choices[0].message`: its text, refusal and tool calls); `undefined` when it reads
 * as one. Fields it does not read are left to the server.
 */
function shapeProblem(data: unknown): string | undefined {
  if (!isObject(data)) return 'the body is not a JSON object';
  if (!Array.isArray(data.choices)) return 'it has no `choices` array';
  const choice: unknown = data.choices[0];
  if (choice === undefined) return undefined;
  if (!isObject(choice)) return '`choices[0]` is not an object';
  const message = choice.message;
  if (message === undefined || message === null) return undefined;
  if (!isObject(message)) return '`choices[0].message` is not an object';
  // A list of parts is read as Mistral's reasoning models send it (see `readContentParts`).
  if (!isOptionalString(message.content) && !Array.isArray(message.content)) return '`choices[0].message.content` is neither a string nor a list of parts';
  if (!isOptionalString(message.refusal)) return '`choices[0].message.refusal` is not a string';
  const calls = message.tool_calls;
  if (calls === undefined || calls === null) return undefined;
  if (!Array.isArray(calls)) return '`choices[0].message.tool_calls` is not an array';
  const bad = calls.findIndex((call) => !isToolCallShape(call));
  return bad < 0 ? undefined : `\`choices[0].message.tool_calls[${bad}]\` is not a function call with a string \`function.name\``;
}

/** Whether a parsed body is a whole chat completion (`choices`) or a whole error (`error: {…}`). */
function isWholeCompletion(value: unknown): boolean {
  return isObject(value) && (Array.isArray(value.choices) || isObject(value.error));
}

/**
 * The body of a successful non-streamed Chat Completions response (the SDK has already made
 * the call: auth, retries, status errors), read and parsed here rather than through the
 * SDK's per-call parse chain (an extra promise chain, a timer and a race per call). A body
 * that is not JSON, or empty, is a `ProviderError` that says what came back, and so is JSON
 * that is not a chat completion in the fields read from it (a proxy's or another API's JSON);
 * a body with an `error` is the SDK's `APIError` for it (a `RateLimitError` for `code: 429`);
 * JSON that does not parse throws the parser's `SyntaxError`, as the SDK's parse did. The
 * body's read is bounded by the fetch (its body or idle timeout) and by the request's abort
 * signal; a whole completion (an object with `choices`, or with an `error` object) whose end
 * never comes is taken after `endGraceMs` of silence (see `readJsonBodyText`); any other JSON
 * that stalls keeps the read waiting for the end.
 */
export async function readChatCompletion(response: Response, options: { endGraceMs?: number } = {}): Promise<ChatCompletion> {
  const contentType = response.headers.get('content-type');
  // Not JSON (an HTML login page, an SSE stream for a request that asked for none): refused
  // without reading a body that may never end.
  const json = isJsonMediaType(contentType);
  if (!json) await response.body?.cancel().catch(() => undefined);
  const text = json ? await readJsonBodyText(response, { endGraceMs: options.endGraceMs ?? DEFAULT_END_GRACE_MS, isComplete: isWholeCompletion }) : '';
  if (!json || text === '') {
    const what = json || response.headers.get('content-length') === '0' ? 'an empty body' : `a body of type ${contentType ?? '(none)'}`;
    throw new ProviderError({
      provider: 'openai',
      status: response.status,
      message: `The server answered the chat completion with ${what} (HTTP ${response.status}), not a JSON completion. Check that baseURL points at an OpenAI-compatible API.`,
    });
  }
  const data: unknown = JSON.parse(text);
  // An error in a 200 (OpenRouter's advice: check for one): the SDK's error, as a stream's
  // `{"error": …}` event is, with the status its numeric `code` gives (a 429: a rate limit).
  const error = isObject(data) ? data.error : undefined;
  if (error !== undefined && error !== null && error !== false && error !== '' && error !== 0) {
    const code = isObject(error) ? error.code : undefined;
    if (typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599) throw APIError.generate(code, data as object, undefined, response.headers);
    throw new APIError(undefined, error, undefined, response.headers);
  }
  const problem = shapeProblem(data);
  if (problem !== undefined) {
    throw new ProviderError({
      provider: 'openai',
      status: response.status,
      message: `The server answered the chat completion with JSON that is not a chat completion: ${problem} (HTTP ${response.status}). Check that baseURL points at an OpenAI-compatible API.`,
    });
  }
  return data as ChatCompletion;
}

/**
 * Refuses the response to a streamed request when it is plainly not a stream: an HTML page (a
 * login or challenge page, a proxy's error), or a JSON document (an `error` object in a 200,
 * or a server that ignored `stream: true`). Read as a stream, either would end as a stream
 * "without a finish reason", which hides what the server said. Any other type is read as a
 * stream, as the SDK does.
 */
export async function refuseNonStreamBody(response: Response, options: { endGraceMs?: number } = {}): Promise<void> {
  const contentType = response.headers.get('content-type');
  const json = isJsonMediaType(contentType);
  if (!json && contentType?.toLowerCase().startsWith('text/html') !== true) return;
  // Throws the SDK's `APIError` for an `error` body, a `ProviderError` for anything that is not a completion.
  if (json) await readChatCompletion(response, options);
  else await response.body?.cancel().catch(() => undefined);
  throw new ProviderError({
    provider: 'openai',
    status: response.status,
    message: json
      ? `The server answered the streamed chat completion with a whole JSON completion (HTTP ${response.status}), not an event stream: it does not stream. Send the request without 'stream', or check that baseURL points at an OpenAI-compatible API.`
      : `The server answered the streamed chat completion with a body of type ${contentType ?? '(none)'} (HTTP ${response.status}), not an event stream. Check that baseURL points at an OpenAI-compatible API.`,
  });
}
