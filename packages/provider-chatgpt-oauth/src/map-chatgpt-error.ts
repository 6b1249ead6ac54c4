import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  ProviderServerError,
  RateLimitError,
  UsageLimitError,
} from '@toolwire/core';

import { isContextLengthMessage, mapProviderError, parseRetryAfter, retryDelayFromText } from '@toolwire/core/provider';

import { isRecord } from './auth/jwt.ts';
import { PROVIDER_NAME } from './constants.ts';

/** What is known about a failed backend request. */
export interface BackendFailure {
  status: number;
  /** The response body as text. */
  body: string;
  headers: Headers;
  modelId: string;
  /** Model slugs from the catalog, to suggest on an unknown model. */
  knownModels?: readonly string[];
}

/**
 * Turns a non-2xx backend answer into a core error that quotes the backend and says what
 * to change. Usage limits (429, and the 404 variant) become `UsageLimitError` with the
 * reset time and are not retryable.
 */
export function backendError(failure: BackendFailure): ProviderError {
  const { status, modelId } = failure;
  const parsed = parseBody(failure.body);
  const code = parsed.code;
  const quoted = parsed.message !== undefined ? `"${parsed.message}"` : `HTTP ${status}`;
  const base = { provider: PROVIDER_NAME, status, ...(code !== undefined ? { code } : {}) };

  if (code === 'usage_limit_reached' && (status === 429 || status === 404)) return usageLimitError(parsed.error, base);
  if (code === 'insufficient_quota') return quotaError(quoted, base);
  if (code === 'usage_not_included') {
    return new PermissionDeniedError({
      ...base,
      message: `The ChatGPT backend said ${quoted}: this plan does not include Codex. Use a ChatGPT plan with Codex (Plus, Pro, team), or an OpenAI API key with @toolwire/provider-openai.`,
    });
  }
  if (status === 401) {
    return new AuthenticationError({ ...base, message: `The ChatGPT backend rejected the sign-in (${quoted}) even after a refresh: sign in again with \`toolwire login chatgpt\`.` });
  }
  if (status === 403) {
    const html = failure.body.trimStart().startsWith('<');
    return new PermissionDeniedError({
      ...base,
      message: html
        ? 'The ChatGPT backend answered 403 with an HTML page (Cloudflare blocks some networks and non-Codex clients). Try another network, and check that baseURL points to https://chatgpt.com/backend-api.'
        : `The ChatGPT backend refused the request (403, ${quoted}). Check that this account may use Codex and that baseURL is right.`,
    });
  }
  if (status === 429) {
    const retryAfter = parseRetryAfter({ headers: failure.headers, message: parsed.message });
    return new RateLimitError({
      ...base,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      message: `The ChatGPT backend is rate limiting (${quoted}). Wait${retryAfter !== undefined ? ` ${Math.ceil(retryAfter / 1000)} s` : ' a moment'} and try again.`,
    });
  }
  if (status >= 500) {
    return new ProviderServerError({ ...base, retryable: true, message: `The ChatGPT backend failed (HTTP ${status}, ${quoted}). Try again later.` });
  }
  const detail = parsed.message ?? '';
  if (isContextLengthMessage(detail, code)) {
    return new ContextLengthExceededError({ ...base, message: `The ChatGPT backend said ${quoted}. Shorten the conversation or drop old tool outputs.` });
  }
  if (status === 404 || isUnknownModel(detail)) {
    const suggestion =
      failure.knownModels !== undefined && failure.knownModels.length > 0
        ? `Use one of this account's models: ${failure.knownModels.join(', ')}.`
        : 'Check the model name (e.g. gpt-5.4) and that baseURL is https://chatgpt.com/backend-api.';
    return new ModelNotFoundError({ ...base, modelId, message: `The ChatGPT backend does not serve model "${modelId}" here (${quoted}). ${suggestion}` });
  }
  return new InvalidRequestError({ ...base, message: `The ChatGPT backend rejected the request: ${quoted}. ${adviceFor(detail, code)}` });
}

/** Turns a `response.failed` (or stream `error`) payload into a core error. */
export function streamFailureError(error: unknown): ProviderError {
  const record = isRecord(error) ? error : {};
  const code = typeof record.code === 'string' ? record.code : typeof record.type === 'string' ? record.type : undefined;
  const message = typeof record.message === 'string' ? record.message : 'The response failed without a message.';
  const base = { provider: PROVIDER_NAME, message: `The ChatGPT backend failed the response: "${message}"`, ...(code !== undefined ? { code } : {}) };
  switch (code) {
    case 'context_length_exceeded':
      return new ContextLengthExceededError({ ...base, message: `${base.message}. Shorten the conversation or drop old tool outputs.` });
    case 'usage_limit_reached':
      return usageLimitError(record, { provider: PROVIDER_NAME, code });
    case 'insufficient_quota':
      return quotaError(`"${message}"`, { provider: PROVIDER_NAME, code });
    case 'usage_not_included':
      return new PermissionDeniedError({ ...base, message: `${base.message}. This plan does not include Codex.` });
    case 'rate_limit_exceeded': {
      const retryAfter = retryDelayFromText(message);
      return new RateLimitError({ ...base, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) });
    }
    case 'server_is_overloaded':
    case 'slow_down':
      return new ProviderServerError({ ...base, retryable: true, message: `${base.message}. Try again shortly.` });
    default:
      return new ProviderError(base);
  }
}

/**
 * `insufficient_quota` is a billing quota, not the plan's usage window: retrying does not
 * help until credits are added (core's wording, with where to look for a ChatGPT account).
 */
function quotaError(quoted: string, base: { provider: string; status?: number; code?: string }): ProviderError {
  return mapProviderError({
    ...base,
    code: 'insufficient_quota',
    message: `The ChatGPT backend said ${quoted}`,
    hints: {
      quota:
        "the account's billing quota (credits) is used up: add credits in the ChatGPT workspace's billing settings or wait for the plan to renew; retrying will not help",
    },
  });
}

function usageLimitError(error: Record<string, unknown> | undefined, base: { provider: string; status?: number; code?: string }): UsageLimitError {
  const resetsAtSeconds = typeof error?.resets_at === 'number' ? error.resets_at : undefined;
  const resetsIn = typeof error?.resets_in_seconds === 'number' ? error.resets_in_seconds : undefined;
  const resetsAt =
    resetsAtSeconds !== undefined ? new Date(resetsAtSeconds * 1000) : resetsIn !== undefined ? new Date(Date.now() + resetsIn * 1000) : undefined;
  const plan = typeof error?.plan_type === 'string' ? ` of the ${error.plan_type} plan` : '';
  const when = resetsAt !== undefined ? `It resets at ${resetsAt.toISOString()}` : 'Try again later';
  return new UsageLimitError({
    ...base,
    code: base.code ?? 'usage_limit_reached',
    ...(resetsAt !== undefined ? { resetsAt, retryAfterMs: Math.max(0, resetsAt.getTime() - Date.now()) } : {}),
    message: `The ChatGPT usage limit${plan} has been reached. ${when}; retrying before then fails again. Use an OpenAI API key meanwhile, or upgrade the plan.`,
  });
}

interface ParsedBody {
  code?: string;
  message?: string;
  error?: Record<string, unknown>;
}

function parseBody(body: string): ParsedBody {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text !== '' && !text.startsWith('<') ? { message: text.slice(0, 300) } : {};
  }
  if (!isRecord(json)) return {};
  const result: ParsedBody = {};
  if (typeof json.detail === 'string') result.message = json.detail;
  if (isRecord(json.error)) {
    result.error = json.error;
    const code = json.error.code ?? json.error.type;
    if (typeof code === 'string') result.code = code;
    if (typeof json.error.message === 'string') result.message = json.error.message;
  } else if (typeof json.error === 'string') {
    result.message ??= json.error;
  }
  return result;
}

function isUnknownModel(detail: string): boolean {
  const lower = detail.toLowerCase();
  return lower.includes('model') && (lower.includes('not supported') || lower.includes('not found') || lower.includes('does not exist'));
}

function adviceFor(detail: string, code: string | undefined): string {
  if (detail.startsWith('Instructions are required')) return 'Send instructions (this provider always does; check a custom fetch that rewrites the body).';
  if (detail.startsWith('Instructions are not valid')) return "Drop a custom `instructions` setting so the model's base instructions are sent (put your guidance in a system message instead).";
  if (detail.startsWith('Unsupported parameter')) return 'Remove that setting from the request or the provider options.';
  if (detail.includes('reasoning.effort') || detail.includes("'reasoning_effort'")) {
    return "Set reasoningEffort to a level this model takes (the model catalog lists them), or leave it unset for the model's default.";
  }
  if (detail.startsWith('Store must be set to false') || detail.startsWith('Stream must be set to true')) {
    return 'Do not override `store` or `stream` in providerOptions.chatgpt.';
  }
  if (code === 'invalid_function_parameters' || detail.startsWith('Invalid schema for function')) {
    return 'Fix that tool\'s parameter schema (an object with `type: "object"` and `properties`).';
  }
  return 'Change the request as the message says.';
}
