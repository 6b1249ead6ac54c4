/**
 * The key of a `RequestInit` field through which the provider hands a request's abort
 * signal to a `fetch` that says it reads it, instead of the SDK's `signal` option.
 *
 * Why: for every call given a `signal`, the `openai` SDK composes it with its own
 * controller's through `AbortSignal.any` (weak references, a finalization registration and
 * a WeakMap entry per call, ~30 µs of CPU per call in the gateway's measurements). A `fetch`
 * marked with `[FETCH_SIGNAL]: true` (a property of the function) receives the request's
 * signal in `init[FETCH_SIGNAL]` instead (through the SDK's per-request `fetchOptions`),
 * and the SDK's own controller signal still arrives as `init.signal`. Such a fetch must:
 * - stop the request when `init[FETCH_SIGNAL]` aborts, as it does for `init.signal`, both
 *   before the response and while its body is read;
 * - answer an abort before the response with a response of status 499 carrying
 *   `x-should-retry: false` (see `FETCH_SIGNAL_ABORT_STATUS`), never a rejection: the SDK
 *   does not know of this signal and would retry a rejection as a connection failure,
 *   while it takes that header's word and ends the call. The provider reports the
 *   signal's reason, not the 499.
 * A fetch without the mark (the global one, any other) gets the SDK's `signal` option as before.
 *
 * @example
 * const fetch = Object.assign(myFetch, { [FETCH_SIGNAL]: true as const });
 * createOpenAI({ fetch });
 */
export const FETCH_SIGNAL: unique symbol = Symbol.for('@toolwire/provider-openai.fetch-signal');

/** The status of the response a `FETCH_SIGNAL` fetch answers an abort before the response with. */
export const FETCH_SIGNAL_ABORT_STATUS = 499;

/** Whether `fetch` says it reads `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL`). */
export function readsFetchSignal(fetch: typeof globalThis.fetch | undefined): boolean {
  return fetch !== undefined && (fetch as { [FETCH_SIGNAL]?: unknown })[FETCH_SIGNAL] === true;
}

/** The signal a `FETCH_SIGNAL` fetch was handed in `init`, if any. */
export function fetchSignalOf(init: RequestInit | undefined): AbortSignal | undefined {
  const signal = (init as { [FETCH_SIGNAL]?: unknown } | undefined)?.[FETCH_SIGNAL];
  return signal instanceof AbortSignal ? signal : undefined;
}
