import { toolOutput } from '@toolwire/core';
import type { ToolOutput } from '@toolwire/core';

/** An HTTP response as the tool saw it. */
export interface ApiResponse {
  status: number;
  statusText: string;
  contentType: string;
  /** The body as text (already size-capped by the fetch). */
  body: string;
  retryAfter?: string;
}

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
export function mapResponse(answer: ApiResponse, options: { operation: string; maxMessageChars: number }): ToolOutput {
  let response = answer;
  if (!isTextual(response.contentType) && response.body !== '') {
    // Bytes decoded as UTF-8 are noise to a model: describe the body instead.
    const placeholder = `[${response.contentType} body, about ${Buffer.byteLength(response.body)} bytes, not shown]`;
    response = { ...response, body: placeholder };
  }
  const value: OpenApiToolValue = { status: response.status, contentType: response.contentType, body: parseBody(response) };
  const text = cut(response.body, options.maxMessageChars);
  if (response.status >= 200 && response.status < 300) {
    return toolOutput({ message: text === '' ? `Done (HTTP ${response.status}, no content).` : text, value });
  }
  const head = `${options.operation} answered HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  const detail = text === '' ? '' : `: ${cut(response.body, Math.min(options.maxMessageChars, 2000))}`;
  const { hint, errorType } = advice(response);
  return toolOutput({ message: `${head}${detail}. ${hint}`, value, success: false, errorType });
}

function advice(response: ApiResponse): { hint: string; errorType: 'permission_denied' | 'rate_limited' | 'execution_error' } {
  const status = response.status;
  if (status === 401 || status === 403) return { hint: 'The API refused the credentials for this; do not retry it, answer without it.', errorType: 'permission_denied' };
  if (status === 429) {
    const wait = response.retryAfter === undefined ? 'later' : `after ${response.retryAfter} s`;
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

function parseBody(response: ApiResponse): unknown {
  const type = response.contentType.toLowerCase();
  if (type.includes('json') && response.body !== '') {
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      return response.body;
    }
  }
  return response.body;
}

function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[… ${text.length - maxChars} more characters cut]`;
}
