import { FetchDeniedError } from '../errors.ts';
import { createFetchGuard } from './fetch-guard.ts';
import type { GuardedFetch, GuardedFetchOptions } from './fetch-guard.ts';

export type { GuardedFetch, GuardedFetchOptions, GuardedRequestInit, GuardedResponse } from './fetch-guard.ts';

/**
 * Creates a fetch that enforces an allow-list: http(s) only, host on `allowedDomains`,
 * every resolved address public unless `allowPrivateNetwork`, the connection pinned to
 * the checked address (no DNS rebinding between check and connect), every redirect
 * re-checked, a response size cap and a timeout. Refusals reject with `FetchDeniedError`.
 * The server's `fetch_url` tool reuses it.
 * @example
 * const fetchUrl = createGuardedFetch({ allowedDomains: ['api.example.com', '*.wikipedia.org'] });
 * const page = await fetchUrl('https://en.wikipedia.org/wiki/Tool');
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  return createFetchGuard(options, (url, reason) => new FetchDeniedError({ url, reason }));
}
