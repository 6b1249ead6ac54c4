import { AnswerLimit } from '@toolwire/core';
import type { AnswerLimits } from '@toolwire/core';
import { readJsonBodyText } from '@toolwire/core/provider';
import { Ollama } from 'ollama';
import type { AbortableAsyncIterator, ChatRequest as OllamaClientChatRequest, ChatResponse as OllamaClientChatResponse } from 'ollama';
import { mapOllamaError } from './map-ollama-error.ts';
import { frameNdjsonLines } from './ndjson-line-framer.ts';
import { displayHost } from './ollama-host.ts';
import type { OllamaChatBody, OllamaChatChunk } from './ollama-wire.ts';
import { readOllamaChunk } from './read-ollama-chunk.ts';

/** How to reach one Ollama server; shared by every model of a provider. */
export interface OllamaConnection {
  /** Normalised base URL (see `resolveOllamaHost`). */
  host: string;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /** See `OllamaProviderOptions.endGraceMs` (default `DEFAULT_END_GRACE_MS`). */
  endGraceMs?: number;
  /** The bounds on one answer (`maxAnswerChars`, `maxToolCallsPerAnswer`); absent or 0: none. */
  answerLimits?: AnswerLimits;
}

/** How `createOllama`'s answer bounds are named in their errors. */
const ANSWER_SETTINGS = { chars: 'the maxAnswerChars option of createOllama', toolCalls: 'the maxToolCallsPerAnswer option of createOllama' };

/** A counter for one answer over this connection, or undefined when its bounds are off. */
export function newAnswerLimit(connection: OllamaConnection): AnswerLimit | undefined {
  const limits = connection.answerLimits;
  if (limits === undefined || (limits.maxChars === 0 && limits.maxToolCalls === 0)) return undefined;
  return new AnswerLimit({ ...limits, settings: ANSWER_SETTINGS, provider: 'ollama' });
}

/**
 * How long a complete answer (the `done: true` chunk, a whole JSON body) waits for the end of
 * its body before the connection is closed: a server that answered and keeps the connection
 * open holds no socket for longer.
 */
export const DEFAULT_END_GRACE_MS = 2000;

/** What one call adds to the connection. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
  modelId: string;
}

/**
 * Whether a parsed body is a whole non-streamed /api/chat answer: an object with `done: true`.
 * A `done: false` object is one line of an NDJSON stream (a server or proxy that ignored
 * `stream: false`), never the answer, however long the body stalls after it.
 */
function isFinalChatObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { done?: unknown }).done === true;
}

/** How much of an error response that is not JSON is read for its message. */
const MAX_ERROR_TEXT_BYTES = 64 * 1024;

/** Whether `text` is Ollama's error JSON, `{"error": "…"}`, which the client reads as it is. */
function isOllamaErrorJson(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { error?: unknown }).error === 'string' && (parsed as { error: string }).error !== '';
  } catch {
    return false;
  }
}

/**
 * An error response as Ollama's own `{"error": …}` JSON, its text cut to
 * `MAX_ERROR_TEXT_BYTES`: a body that is not JSON (a proxy's page, a plain-text message), or
 * that says it is and is not Ollama's `{"error": "…"}` (cut short, garbled, another API's
 * error object), becomes the message. The `ollama`
 * client reads an error body whole, and prints "Getting text from response" or "Failed to
 * parse error response as JSON" to the console (the gateway's log stream) on the way; as
 * JSON, it takes the message without either.
 */
async function asJsonError(response: Response, host: string): Promise<Response> {
  if (response.ok) return response;
  const saysJson = response.headers.get('content-type')?.includes('application/json') === true;
  let text = '';
  let whole = true;
  const reader = response.body?.getReader();
  if (reader !== undefined) {
    const decoder = new TextDecoder();
    let size = 0;
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        size += read.value.byteLength;
        text += decoder.decode(read.value, { stream: true });
        if (size >= MAX_ERROR_TEXT_BYTES) {
          whole = false;
          break;
        }
      }
      text += decoder.decode();
    } catch {
      // A body that fails while being read: what came is the message.
      whole = false;
    }
    await reader.cancel().catch(() => undefined);
  }
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  if (saysJson && whole && isOllamaErrorJson(text)) return new Response(text, { status: response.status, statusText: response.statusText, headers });
  // Not Ollama's own words: said as what answered, so that a page, garbled bytes or nothing
  // still make a message that tells the operator where to look.
  const body = text.trim().slice(0, MAX_ERROR_TEXT_BYTES);
  const type = response.headers.get('content-type');
  const message =
    `The server at ${displayHost(host)} answered HTTP ${response.status}${type === null ? '' : ` (${type.split(';')[0] ?? type})`}` +
    `${body === '' ? ' with an empty body' : `: ${body}`}. If this is not Ollama's error, check OLLAMA_HOST (a proxy or another service may answer in its place).`;
  return new Response(JSON.stringify({ error: message }), { status: response.status, statusText: response.statusText, headers });
}

/**
 * A client for one call. The client has no per-call signal or headers for non-streamed
 * requests, so both go in through a `fetch` wrapper; the client is a thin object and
 * cheap to create.
 */
export function createClient(
  connection: OllamaConnection,
  call: Omit<CallOptions, 'modelId'> = {},
  options: { wholeJson?: boolean; isComplete?: (value: unknown) => boolean; ndjson?: boolean } = {},
): Ollama {
  const baseFetch = connection.fetch ?? globalThis.fetch;
  const signal = call.signal;
  const send = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const asError = (response: Response): Promise<Response> => asJsonError(response, connection.host);
    if (signal === undefined) return baseFetch(input, init).then(asError);
    const own = init?.signal ?? undefined;
    return baseFetch(input, { ...init, signal: own === undefined ? signal : AbortSignal.any([own, signal]) }).then(asError);
  };
  const endGraceMs = connection.endGraceMs ?? DEFAULT_END_GRACE_MS;
  // A non-streamed answer is read here, so that a whole answer (`done: true`, or what
  // `isComplete` says) whose end never comes is taken after the grace (the client's own
  // `response.json()` would wait for the end).
  const wholeJson = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await send(input, init);
    if (!response.ok || response.body === null) return response;
    const text = await readJsonBodyText(response, { endGraceMs, isComplete: options.isComplete ?? isFinalChatObject });
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  // A streamed answer reaches the client one checked line at a time (see `frameNdjsonLines`).
  const ndjson = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await send(input, init);
    if (!response.ok || response.body === null) return response;
    const body = frameNdjsonLines(response.body, { host: displayHost(connection.host) });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const wrapped = options.wholeJson === true ? wholeJson : options.ndjson === true ? ndjson : send;
  return new Ollama({
    host: connection.host,
    fetch: wrapped,
    headers: { ...connection.headers, ...call.headers },
  });
}

// The client's request type lacks fields current servers accept (`think: "max"`, call
// ids, `tool_call_id`); the body is sent as JSON unchanged.
function asClientRequest(body: OllamaChatBody): OllamaClientChatRequest {
  return body as unknown as OllamaClientChatRequest;
}

/** How much of a non-string `error` value is quoted in a message. */
const ERROR_EXCERPT_CHARS = 500;

/** The `error` an /api/chat answer carries in place of its message (Ollama's `{"error": …}`), quoted; undefined for an answer. */
function answeredError(response: unknown): string | undefined {
  if (typeof response !== 'object' || response === null || Array.isArray(response) || !('error' in response)) return undefined;
  const error: unknown = response.error;
  if (error === undefined || error === null || error === '') return undefined;
  const said = typeof error === 'string' ? error : (JSON.stringify(error) ?? '');
  return said.length > ERROR_EXCERPT_CHARS ? `${said.slice(0, ERROR_EXCERPT_CHARS)}…` : said;
}

/** One non-streamed /api/chat call; errors come out as core errors. */
export async function chatOnce(connection: OllamaConnection, body: OllamaChatBody, call: CallOptions): Promise<OllamaChatChunk> {
  const client = createClient(connection, call, { wholeJson: true });
  try {
    const response: unknown = await client.chat({ ...asClientRequest(body), stream: false });
    // Ollama's error object in a 200 (a model failing after the headers went out, or a proxy
    // passing it on): an error, not an empty answer.
    const said = answeredError(response);
    if (said !== undefined) throw new Error(`Ollama at ${displayHost(connection.host)} answered with an error instead of a message: ${said}. Retry the request; if it keeps happening, check Ollama's log.`);
    return readOllamaChunk(response);
  } catch (error) {
    throw mapOllamaError(error, { host: connection.host, modelId: call.modelId, headers: { ...connection.headers, ...call.headers } });
  }
}

/**
 * One streamed /api/chat call: resolves once the server accepted the request (so HTTP
 * errors reject here), then yields the NDJSON chunks. Leaving the loop early aborts
 * the request.
 */
export async function chatStream(
  connection: OllamaConnection,
  body: OllamaChatBody,
  call: CallOptions,
): Promise<AsyncIterable<OllamaChatChunk>> {
  const client = createClient(connection, call, { ndjson: true });
  let iterator: AbortableAsyncIterator<OllamaClientChatResponse>;
  try {
    iterator = await client.chat({ ...asClientRequest(body), stream: true });
  } catch (error) {
    throw mapOllamaError(error, { host: connection.host, modelId: call.modelId, headers: { ...connection.headers, ...call.headers } });
  }
  const endGraceMs = connection.endGraceMs ?? DEFAULT_END_GRACE_MS;
  return (async function* chunks(): AsyncGenerator<OllamaChatChunk> {
    let finished = false;
    try {
      for await (const raw of iterator) {
        const chunk = readOllamaChunk(raw);
        yield chunk;
        if (chunk.done === true) finished = true;
      }
      // The client stops reading at the `done` chunk, which ends the answer; the body's end
      // gets a short while to come. A server that keeps the connection open past it has its
      // request aborted then, so its socket is not held until the idle timeout (an abort
      // after the end changes nothing).
      if (endGraceMs > 0) setTimeout(() => iterator.abort(), endGraceMs).unref();
      finished = true;
    } catch (error) {
      finished = true;
      throw mapOllamaError(error, { host: connection.host, modelId: call.modelId, inStream: true, headers: { ...connection.headers, ...call.headers } });
    } finally {
      if (!finished) iterator.abort();
    }
  })();
}
