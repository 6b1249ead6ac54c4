import { jsonTextDepth, toolOutput } from '@toolwire/core';
import type { ToolOutput } from '@toolwire/core';
import { parseRetryAfter } from '@toolwire/core/provider';

/** An HTTP response as the tool saw it. */
export interface ApiResponse {
  status: number;
  statusText: string;
  contentType: string;
  /** The body as text (already size-capped by the fetch). */
  body: string;
  retryAfter?: string;
  /** `content-encoding`, when the API compressed the body although asked not to. */
  contentEncoding?: string;
  /** The body was cut at this many bytes (an error page past `maxResponseBytes`). */
  truncatedAt?: number;
}

/** How a response is shown to the model. */
export interface MapResponseOptions {
  /** `METHOD /path`, for messages. */
  operation: string;
  maxMessageChars: number;
  /** Hides the credentials in any text the API sent back (default: none). */
  redact?: (text: string) => string;
}

// Deeper JSON parses, but cannot be written out again (`JSON.stringify` overflows the stack),
// so a value that deep would break whoever logs or forwards the result: it stays text.
const MAX_JSON_DEPTH = 256;

/** The structured value of an OpenAPI tool's result, as `ToolResult.value`. */
export interface OpenApiToolValue {
  status: number;
  contentType: string;
  /** The body parsed as JSON when it is JSON, else the text. */
  body: unknown;
}

/**
 * Maps an HTTP response to a tool output. 2xx: the body (parsed when JSON) as the value and
 * its text, cut at `maxMessageChars`, as the message; a binary body is described, not shown. 4xx and 5xx: a failed result whose
 * message says what went wrong and what the model can do about it, with the API's own
 * error text (401/403 `permission_denied`, 429 `rate_limited`, others `execution_error`).
 */
export function mapResponse(answer: ApiResponse, options: MapResponseOptions): ToolOutput {
  const redact = options.redact ?? ((text: string) => text);
  let response: ApiResponse = {
    ...answer,
    statusText: redact(answer.statusText),
    // A header can be 16 KB of the API's prose; a media type is short.
    contentType: cutPlain(redact(answer.contentType), 200),
    body: redact(answer.body),
  };
  const encoding = (answer.contentEncoding ?? '').trim().toLowerCase();
  if (response.body !== '' && encoding !== '' && encoding !== 'identity') {
    // Asked for `identity`, sent compressed anyway: the bytes mean nothing to a model.
    response = { ...response, body: `[${encoding}-encoded ${response.contentType || 'body'}, about ${Buffer.byteLength(response.body)} bytes, not shown]` };
  } else if (!isTextual(response.contentType) && response.body !== '') {
    // Bytes decoded as UTF-8 are noise to a model: describe the body instead.
    const placeholder = `[${response.contentType} body, about ${Buffer.byteLength(response.body)} bytes, not shown]`;
    response = { ...response, body: placeholder };
  }
  let body = parseBody(response, encoding);
  let shown = response.body;
  if (typeof body !== 'string') {
    // JSON escapes (`\u0073ecret`) hide a credential from a search of the text, not from the parse.
    const clean = redactStrings(body, redact);
    if (clean.changed) {
      body = clean.value;
      shown = JSON.stringify(clean.value);
    }
  }
  const value: OpenApiToolValue = { status: response.status, contentType: response.contentType, body };
  const truncated = answer.truncatedAt === undefined ? '' : ` [the body is larger than ${answer.truncatedAt} bytes; only its start is shown]`;
  const text = cut(shown, options.maxMessageChars);
  if (response.status >= 200 && response.status < 300) {
    return toolOutput({ message: text === '' ? `Done (HTTP ${response.status}, no content).` : text, value });
  }
  const head = `${options.operation} answered HTTP ${response.status}${response.statusText === '' ? '' : ` ${cut(response.statusText, 200)}`}`;
  const detail = text === '' ? '' : `: ${cut(shown, Math.min(options.maxMessageChars, 2000))}${truncated}`;
  const { hint, errorType } = advice(response);
  return toolOutput({ message: `${head}${detail}. ${hint}`, value, success: false, errorType });
}

function advice(response: ApiResponse): { hint: string; errorType: 'permission_denied' | 'rate_limited' | 'execution_error' } {
  const status = response.status;
  if (status === 401 || status === 403) return { hint: 'The API refused the credentials for this; do not retry it, answer without it.', errorType: 'permission_denied' };
  if (status === 429) {
    // Only a number of seconds or an HTTP date, read by core's parser (at most a week): never the API's text.
    const ms = response.retryAfter === undefined ? undefined : parseRetryAfter({ headers: new Headers({ 'retry-after': response.retryAfter }) });
    const wait = ms === undefined ? 'later' : `after ${Math.ceil(ms / 1000)} s`;
    return { hint: `The API is rate limited; try again ${wait}.`, errorType: 'rate_limited' };
  }
  if (status === 404) return { hint: 'Nothing was found there; check the identifiers, or list the items first.', errorType: 'execution_error' };
  if (status === 400 || status === 409 || status === 422) return { hint: 'Fix the arguments as the message says and call again.', errorType: 'execution_error' };
  if (status >= 500) return { hint: 'The API failed on its side; try again once, or answer without it.', errorType: 'execution_error' };
  return { hint: 'The request was not accepted; change it or answer without it.', errorType: 'execution_error' };
}

function isTextual(contentType: string): boolean {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return (
    type === '' ||
    type.startsWith('text/') ||
    type.includes('json') ||
    type.includes('xml') ||
    type.includes('yaml') ||
    type.includes('javascript') ||
    type === 'application/x-www-form-urlencoded'
  );
}

function parseBody(response: ApiResponse, encoding: string): unknown {
  const type = response.contentType.toLowerCase();
  if (type.includes('json') && response.body !== '' && (encoding === '' || encoding === 'identity') && jsonTextDepth(response.body, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH) {
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      return response.body;
    }
  }
  return response.body;
}

function redactStrings(value: unknown, redact: (text: string) => string): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    const clean = redact(value);
    return { value: clean, changed: clean !== value };
  }
  if (typeof value !== 'object' || value === null) return { value, changed: false };
  let changed = false;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => {
      const clean = redactStrings(item, redact);
      changed ||= clean.changed;
      return clean.value;
    });
    return { value: changed ? items : value, changed };
  }
  const entries = Object.entries(value).map(([key, item]): [string, unknown] => {
    const cleanKey = redact(key);
    const clean = redactStrings(item, redact);
    changed ||= clean.changed || cleanKey !== key;
    return [cleanKey, clean.value];
  });
  return { value: changed ? Object.fromEntries(entries) : value, changed };
}

function cutPlain(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}...`;
}

function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[… ${text.length - maxChars} more characters cut]`;
}
