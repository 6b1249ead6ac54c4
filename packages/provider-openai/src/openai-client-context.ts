import type OpenAI from 'openai';
import { AnswerLimit } from '@toolwire/core';
import { headerCredentials } from '@toolwire/core/provider';
import type { AnswerLimits, ChatRequest } from '@toolwire/core';

/**
 * How long a complete Chat Completions answer waits for the rest (see
 * `OpenAIProviderOptions.endGraceMs`): long enough for a usage chunk behind a busy proxy,
 * short next to the idle timeout a silent connection otherwise meets.
 */
export const DEFAULT_END_GRACE_MS = 2000;

/** What a model needs from its provider: the shared SDK client and where it points. */
export interface OpenAIClientContext {
  /** The `openai` client, created on first use. */
  client: () => OpenAI;
  baseURL: string;
  /** Whether `baseURL` is OpenAI's own API (not a compatible server). */
  isOpenAI: boolean;
  /** See `OpenAIProviderOptions.endGraceMs` (default `DEFAULT_END_GRACE_MS`). */
  endGraceMs?: number;
  /** The credentials requests carry (the API key, secret-looking headers): redacted from every error. */
  secrets?: () => readonly string[];
  /** The bounds on one answer (`maxAnswerChars`, `maxToolCallsPerAnswer`); absent or 0: none. */
  answerLimits?: AnswerLimits;
}

/** How `createOpenAI`'s answer bounds are named in their errors. */
const ANSWER_SETTINGS = { chars: 'the maxAnswerChars option of createOpenAI', toolCalls: 'the maxToolCallsPerAnswer option of createOpenAI' };

/** A counter for one answer of this provider, or undefined when its bounds are off. */
export function newAnswerLimit(context: OpenAIClientContext): AnswerLimit | undefined {
  const limits = context.answerLimits;
  if (limits === undefined || (limits.maxChars === 0 && limits.maxToolCalls === 0)) return undefined;
  return new AnswerLimit({ ...limits, settings: ANSWER_SETTINGS, provider: 'openai' });
}

/** Per-request options for the SDK: the abort signal and extra headers. */
export function requestOptions(request: ChatRequest): { signal?: AbortSignal; headers?: Record<string, string> } {
  return {
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
  };
}

/** The credentials of one request: the provider's, and those among the request's own headers. */
export function requestSecrets(context: OpenAIClientContext, request: ChatRequest): readonly string[] {
  const own = headerCredentials(request.headers);
  const shared = context.secrets?.() ?? [];
  return own.length === 0 ? shared : [...shared, ...own];
}
