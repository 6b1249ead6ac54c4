import type { ConformanceScenario, WireReply } from '@toolwire/core/testing';

/**
 * A conformance `error` scenario as OpenAI's APIs answer it, Responses and Chat Completions
 * alike: the status, `retry-after` when the scenario has one, and the body
 * `{ error: { message, type, param, code } }` with the `type` OpenAI uses for that status.
 */
export function openAIErrorReply(scenario: Extract<ConformanceScenario, { type: 'error' }>): WireReply {
  const type = scenario.status === 429 ? 'rate_limit_error' : scenario.status >= 500 ? 'server_error' : 'invalid_request_error';
  return {
    status: scenario.status,
    headers: scenario.retryAfterSeconds !== undefined ? { 'retry-after': String(scenario.retryAfterSeconds) } : {},
    body: JSON.stringify({ error: { message: scenario.message, type, param: null, code: scenario.code ?? null } }),
  };
}
