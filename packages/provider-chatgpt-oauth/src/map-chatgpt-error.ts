import { InvalidRequestError, ModelNotFoundError, PermissionDeniedError, UsageLimitError } from '@toolwire/core';
import type { ProviderError } from '@toolwire/core';

import { mapProviderError, parseRetryAfter } from '@toolwire/core/provider';
import type { ProviderErrorHints } from '@toolwire/core/provider';

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

/** Advice for the classes core's mapping picks, as it applies to a ChatGPT account. */
const HINTS: ProviderErrorHints = {
  authentication: 'the sign-in was rejected even after a refresh: sign in again with `toolwire login chatgpt`',
  permission: 'check that this account may use Codex and that baseURL is https://chatgpt.com/backend-api',
  // `insufficient_quota` is a billing quota, not the plan's usage window: retrying does not
  // help until credits are added (core's wording, with where to look for a ChatGPT account).
  quota: "the account's billing quota (credits) is used up: add credits in the ChatGPT workspace's billing settings or wait for the plan to renew; retrying will not help",
  contextLength: 'shorten the conversation or drop old tool outputs',
  server: 'try again later',
};

/**
 * Turns a non-2xx backend answer into a core error that quotes the backend and says what
 * to change. Core's `mapProviderError` picks the class from the status and code; before it,
 * what only this backend sends: usage limits (429, and the 404 variant) become
 * `UsageLimitError` with the reset time and are not retryable, a plan without Codex and
 * Cloudflare's HTML 403 are explained, and a 4xx naming a model the account does not serve
 * is a `ModelNotFoundError` that lists the account's models.
 */
export function backendError(failure: BackendFailure): ProviderError {
  const { status, modelId } = failure;
  const parsed = parseBody(failure.body);
  const code = parsed.code;
  const quoted = parsed.message !== undefined ? `"${parsed.message}"` : `HTTP ${status}`;
  const base = { provider: PROVIDER_NAME, status, ...(code !== undefined ? { code } : {}) };

  if (code === 'usage_limit_reached' && (status === 429 || status === 404)) return usageLimitError(parsed.error, base);
  if (code === 'usage_not_included') {
    return new PermissionDeniedError({
      ...base,
      message: `The ChatGPT backend said ${quoted}: this plan does not include Codex. Use a ChatGPT plan with Codex (Plus, Pro, team), or an OpenAI API key with @toolwire/provider-openai.`,
    });
  }
  if (status === 403 && failure.body.trimStart().startsWith('<')) {
    return new PermissionDeniedError({
      ...base,
      message:
        'The ChatGPT backend answered 403 with an HTML page (Cloudflare blocks some networks and non-Codex clients). Try another network, and check that baseURL points to https://chatgpt.com/backend-api.',
    });
  }
  const detail = parsed.message ?? '';
  const notFound =
    failure.knownModels !== undefined && failure.knownModels.length > 0
      ? `use one of this account's models: ${failure.knownModels.join(', ')}`
      : 'check the model name (e.g. gpt-5.4) and that baseURL is https://chatgpt.com/backend-api';
  const message = `The ChatGPT backend said ${quoted}`;
  const mapped = mapProviderError({
    ...base,
    message,
    headers: failure.headers,
    modelId,
    hints: { ...HINTS, notFound, rateLimit: rateLimitHint(failure, parsed), invalidRequest: adviceFor(detail, code) },
  });
  // The backend answers a model the account does not serve with a 400, which core reads as a bad request.
  if (InvalidRequestError.isInstance(mapped) && isUnknownModel(detail)) return new ModelNotFoundError({ ...base, modelId, message: `${message} (${notFound})` });
  return mapped;
}

/** Turns a `response.failed` (or stream `error`) payload into a core error, by its code. */
export function streamFailureError(error: unknown): ProviderError {
  const record = isRecord(error) ? error : {};
  const code = typeof record.code === 'string' ? record.code : typeof record.type === 'string' ? record.type : undefined;
  const message = `The ChatGPT backend failed the response: "${typeof record.message === 'string' ? record.message : 'The response failed without a message.'}"`;
  if (code === 'usage_limit_reached') return usageLimitError(record, { provider: PROVIDER_NAME, code });
  if (code === 'usage_not_included') return new PermissionDeniedError({ provider: PROVIDER_NAME, code, message: `${message}. This plan does not include Codex.` });
  return mapProviderError({ provider: PROVIDER_NAME, message, code, hints: { ...HINTS, server: 'try again shortly' } });
}

function rateLimitHint(failure: BackendFailure, parsed: ParsedBody): string | undefined {
  if (failure.status !== 429) return undefined;
  const wait = parseRetryAfter({ headers: failure.headers, message: parsed.message });
  return `the backend is rate limiting: wait${wait !== undefined ? ` ${Math.ceil(wait / 1000)} s` : ' a moment'} and try again`;
}

function usageLimitError(error: Record<string, unknown> | undefined, base: { provider: string; status?: number; code?: string }): UsageLimitError {
  const resetsAtSeconds = typeof error?.resets_at === 'number' ? error.resets_at : undefined;
  const resetsIn = typeof error?.resets_in_seconds === 'number' ? error.resets_in_seconds : undefined;
  const reset =
    resetsAtSeconds !== undefined ? new Date(resetsAtSeconds * 1000) : resetsIn !== undefined ? new Date(Date.now() + resetsIn * 1000) : undefined;
  // A time outside what a Date holds (`resets_at: 1e300`) is no reset time: `toISOString` would throw.
  const resetsAt = reset !== undefined && Number.isFinite(reset.getTime()) ? reset : undefined;
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
  if (detail.startsWith('Instructions are required')) return 'Send instructions (this provider always does; check a custom fetch that rewrites the body)';
  if (detail.startsWith('Instructions are not valid')) return "Drop a custom `instructions` setting so the model's base instructions are sent (put your guidance in a system message instead)";
  if (detail.startsWith('Unsupported parameter')) return 'Remove that setting from the request or the provider options';
  if (detail.includes('reasoning.effort') || detail.includes("'reasoning_effort'")) {
    return "Set reasoningEffort to a level this model takes (the model catalog lists them), or leave it unset for the model's default";
  }
  if (detail.startsWith('Store must be set to false') || detail.startsWith('Stream must be set to true')) {
    return 'Do not override `store` or `stream` in providerOptions.chatgpt';
  }
  if (code === 'invalid_function_parameters' || detail.startsWith('Invalid schema for function')) {
    return 'Fix that tool\'s parameter schema (an object with `type: "object"` and `properties`)';
  }
  return 'Change the request as the message says';
}
