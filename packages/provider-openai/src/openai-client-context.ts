import type OpenAI from 'openai';
import type { ChatRequest } from '@toolwire/core';

/** What a model needs from its provider: the shared SDK client and where it points. */
export interface OpenAIClientContext {
  /** The `openai` client, created on first use. */
  client: () => OpenAI;
  baseURL: string;
  /** Whether `baseURL` is OpenAI's own API (not a compatible server). */
  isOpenAI: boolean;
}

/** Per-request options for the SDK: the abort signal and extra headers. */
export function requestOptions(request: ChatRequest): { signal?: AbortSignal; headers?: Record<string, string> } {
  return {
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
  };
}
