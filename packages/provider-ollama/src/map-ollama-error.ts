import { InvalidRequestError, ModelNotFoundError, ProviderError, ProviderServerError, ProviderUnavailableError, StreamError, ToolwireError } from '@toolwire/core';
import { headerCredentials, mapProviderError, redactErrorSecrets, urlCredentials } from '@toolwire/core/provider';
import { displayHost } from './ollama-host.ts';

/** `code` of the `InvalidRequestError` for a model without native tools (text tools take over). */
export const TOOLS_UNSUPPORTED = 'tools_unsupported';

// The server cannot be reached at all: not running, wrong host, no route.
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
// The server took the request, then the connection broke: it crashed, was stopped, or a proxy cut it.
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** What `mapOllamaError` needs to know about the failed call. */
export interface OllamaErrorContext {
  host: string;
  modelId: string;
  /** Marks errors raised while reading a stream that had started. */
  inStream?: boolean;
  /** The headers the request carried: the credentials among them are redacted from the error. */
  headers?: Record<string, string> | undefined;
}

/**
 * Turns what the `ollama` client throws into a core error. Aborts and errors that are
 * already Toolwire's pass through unchanged; everything else keeps Ollama's own message.
 * Credentials the request carried in its headers and in the host URL are redacted from the
 * error and its causes (a proxy in front of Ollama may echo them; `fetch` quotes the URL).
 */
export function mapOllamaError(error: unknown, context: OllamaErrorContext): unknown {
  if (isAbortError(error)) return error;
  return redactErrorSecrets(mapError(error, context), [...headerCredentials(context.headers), ...urlCredentials(context.host)]);
}

function mapError(error: unknown, context: OllamaErrorContext): unknown {
  if (ToolwireError.isInstance(error)) return error;
  const host = displayHost(context.host);
  const failure = connectionFailure(error);
  if (failure === 'lost') {
    const options = {
      provider: 'ollama',
      message:
        `The connection to Ollama at ${host} was lost during the answer, so the answer is incomplete. ` +
        "Retry the request; if it keeps happening, check Ollama's log (it may have crashed or run out of memory).",
      cause: error,
    };
    return context.inStream === true ? new StreamError(options) : new ProviderUnavailableError({ ...options, baseURL: host });
  }
  if (failure === 'unreachable') {
    return new ProviderUnavailableError({
      provider: 'ollama',
      baseURL: host,
      message: `Ollama is not reachable at ${host}. Start it with \`ollama serve\` or set OLLAMA_HOST.`,
      cause: error,
    });
  }
  const status = statusOf(error);
  const said = error instanceof Error ? error.message : String(error);
  // The client makes its error of whatever `error` held (`{"error": []}` gives ""): a blank one says nothing.
  const message =
    said.trim() !== ''
      ? said
      : `Ollama at ${host} reported an error${status === undefined ? '' : ` (HTTP ${status})`} without a message${context.inStream === true ? ' in the middle of its answer' : ''}. Retry the request; if it keeps happening, check Ollama's log.`;
  // A whole (non-streamed) answer the client could not parse: cut short, garbled, or not Ollama's.
  if (error instanceof SyntaxError) {
    return new ProviderError({
      provider: 'ollama',
      message: `Ollama at ${host} sent an answer that is not JSON (${said}), so there is no answer. Retry the request; if it keeps happening, check that OLLAMA_HOST points at an Ollama server and not a proxy page.`,
      cause: error,
    });
  }
  // The client's words for a stream that ended without its final `done` line.
  if (status === undefined && said === 'Did not receive done or success response in stream.') {
    const options = { provider: 'ollama', message: `The stream from Ollama at ${host} ended before its final line, so the answer may be incomplete. Retry the request.`, cause: error };
    return context.inStream === true ? new StreamError(options) : new ProviderError(options);
  }
  if (status === undefined) {
    const options = { provider: 'ollama', message, cause: error };
    return context.inStream === true ? new StreamError(options) : new ProviderError(options);
  }
  const options = { provider: 'ollama', message, status, cause: error };
  // Ollama: `model "x" not found, try pulling it first` (chat), `model 'x' not found` (show).
  if (status === 404 && message.includes('model') && message.includes('not found')) {
    const model = context.modelId;
    return new ModelNotFoundError({
      ...options,
      modelId: model,
      message: `Model "${model}" is not available on the Ollama server at ${host}. Pull it with \`ollama pull ${model}\` (Ollama said: ${message}).`,
    });
  }
  if (status === 400 && message.includes('does not support tools')) {
    return new InvalidRequestError({ ...options, code: TOOLS_UNSUPPORTED });
  }
  // Everything else by core's one status mapping; Ollama has no retry-after, and a 500
  // is often the model failing (not retryable), while 502-504 are the server's.
  const mapped = mapProviderError({ provider: 'ollama', status, message, modelId: context.modelId, cause: error });
  if (status === 500) return new ProviderServerError({ ...options, retryable: false });
  return mapped;
}

/** The HTTP status of the client's `ResponseError` (not exported by the client, so duck-typed). */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status_code' in error)) return undefined;
  const status = error.status_code;
  return typeof status === 'number' ? status : undefined;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/**
 * Which kind of connection failure an error is, if any. Node's fetch fails with
 * `TypeError("fetch failed")` (nothing connected) or `TypeError("terminated")` (the body
 * broke off) whose cause carries the socket error code; `node:http` errors carry it directly.
 */
function connectionFailure(error: unknown): 'unreachable' | 'lost' | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return 'unreachable';
    if (typeof code === 'string' && LOST_CODES.has(code)) return 'lost';
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested)) {
      for (const inner of nested) {
        const kind = connectionFailure(inner);
        if (kind !== undefined) return kind;
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  if (error instanceof TypeError && error.message === 'fetch failed') return 'unreachable';
  if (error instanceof TypeError && error.message === 'terminated') return 'lost';
  return undefined;
}
