/**
 * The key of a `RequestInit` field in which a caller hands a `fetch` an abort signal of
 * its own, besides `init.signal`, and the mark by which a `fetch` says it reads it.
 *
 * Why: an SDK that owns `init.signal` (its timeout, its stream's early exit) otherwise
 * has to compose the caller's signal with its own (the `openai` SDK does so with
 * `AbortSignal.any`, weak references and a finalization registration per call). A
 * provider that knows its `fetch` reads `init[FETCH_SIGNAL]` can hand the caller's signal
 * there instead, and the fetch watches both. A `fetch` marked with `[FETCH_SIGNAL]: true`
 * (a property of the function, see `markFetchSignal`) promises to treat an abort of
 * `init[FETCH_SIGNAL]` as it treats one of `init.signal`: nothing sent once it is aborted;
 * before the response, a rejection with the signal's reason; while the body is read, the
 * body fails. A fetch without the mark is never handed the field.
 *
 * @example
 * const fetch = markFetchSignal(async (input, init) => {
 *   const caller = fetchSignalOf(init);
 *   // ...stop the request when `caller` or `init.signal` aborts
 * });
 */
export const FETCH_SIGNAL: unique symbol = Symbol.for('@toolwire/core.fetch-signal');

/** A `fetch` that says it reads `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL`). */
export type FetchSignalFetch = typeof globalThis.fetch & { readonly [FETCH_SIGNAL]: true };

/** Marks `fetch` as reading `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL`) and returns it. */
export function markFetchSignal(fetch: typeof globalThis.fetch): FetchSignalFetch {
  return Object.assign(fetch, { [FETCH_SIGNAL]: true as const });
}

/** Whether `fetch` says it reads `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL`). */
export function readsFetchSignal(fetch: typeof globalThis.fetch | undefined): fetch is FetchSignalFetch {
  return fetch !== undefined && (fetch as { [FETCH_SIGNAL]?: unknown })[FETCH_SIGNAL] === true;
}

/**
 * The signal handed in `init[FETCH_SIGNAL]`, or `undefined` when there is none.
 *
 * @throws TypeError when the field holds something other than an `AbortSignal` (checked
 * before anything is sent, so a caller's mistake never becomes a request that cannot be stopped).
 */
export function fetchSignalOf(init: RequestInit | undefined): AbortSignal | undefined {
  const signal = (init as { [FETCH_SIGNAL]?: unknown } | undefined)?.[FETCH_SIGNAL];
  if (signal === undefined || signal === null) return undefined;
  if (signal instanceof AbortSignal) return signal;
  throw new TypeError(`init[FETCH_SIGNAL] must be an AbortSignal, got ${typeof signal === 'object' ? 'an object' : typeof signal}.`);
}
