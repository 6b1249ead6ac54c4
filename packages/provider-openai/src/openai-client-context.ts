import type OpenAI from 'openai';
import { APIUserAbortError } from 'openai';
import type { ChatRequest } from '@toolwire/core';
import { FETCH_SIGNAL } from './fetch-signal.ts';

/** What a model needs from its provider: the shared SDK client and where it points. */
export interface OpenAIClientContext {
  /** The `openai` client, created on first use. */
  client: () => OpenAI;
  baseURL: string;
  /** Whether `baseURL` is OpenAI's own API (not a compatible server). */
  isOpenAI: boolean;
  /** Whether the client's `fetch` takes the request's signal in `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL`). */
  fetchSignal: boolean;
}

/** The per-request options of an SDK call (here: the abort signal, one way or the other, and extra headers). */
export type SdkRequestOptions = NonNullable<Parameters<OpenAI['chat']['completions']['create']>[1]>;

/**
 * Makes one SDK call (`call` given the per-request options) for `request`. With a `fetch`
 * that reads `FETCH_SIGNAL`, the request's signal goes to the fetch in `fetchOptions`
 * rather than to the SDK (which would compose it through `AbortSignal.any` on every call);
 * the SDK then cannot see an abort while it waits between two retries, so the call is
 * also settled here, with the SDK's own abort error, as soon as the signal aborts (the
 * fetch has stopped the request itself; the SDK ends its call at the fetch's non-retryable answer).
 */
export function callSdk<T>(request: ChatRequest, context: OpenAIClientContext, call: (options: SdkRequestOptions) => PromiseLike<T>): PromiseLike<T> {
  const { signal, headers } = request;
  if (signal === undefined) return call(headers ? { headers } : {});
  if (!context.fetchSignal) return call(headers ? { signal, headers } : { signal });
  if (signal.aborted) return Promise.reject(new APIUserAbortError());
  // A symbol key: the SDK spreads `fetchOptions` into the init it hands the fetch, keys and all.
  const fetchOptions = { [FETCH_SIGNAL]: signal } as SdkRequestOptions['fetchOptions'];
  const pending = call(headers ? { fetchOptions, headers } : { fetchOptions });
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new APIUserAbortError());
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
