import OpenAI from 'openai';
import { FETCH_SIGNAL } from '@toolwire/core/provider';

type FetchWithTimeout = OpenAI['fetchWithTimeout'];

/** Paths a client keeps `buildURL` answers for (a gateway calls one or two). */
const MAX_CACHED_URLS = 64;

/** One remembered `buildURL` answer and the base URLs it was made from. */
interface CachedURL {
  baseURL: string;
  defaultBaseURL: string | undefined;
  url: string;
}

/**
 * The `openai` client for a `fetch` that reads `init[FETCH_SIGNAL]` (see `FETCH_SIGNAL` in
 * `@toolwire/core/provider`). The caller's signal still goes through the SDK's `signal`
 * option, so the SDK checks it before sending, turns a fetch rejection after an abort into
 * its abort error and cuts its wait between retries short; only its way to the fetch changes.
 *
 * Why a subclass: with `fetchWithTimeout` overridden, the SDK gives each request a plain
 * `AbortController` instead of composing the caller's signal with it through
 * `AbortSignal.any` (a cost per call). The override moves the caller's signal from
 * `init.signal` to `init[FETCH_SIGNAL]` and leaves `init.signal` out of what the base
 * method gets, so the base adds no abort listener either; the controller's own signal (the
 * SDK's timeout, a stream's early exit) still reaches the fetch as `init.signal`.
 *
 * It also remembers `buildURL`'s answers (a public method of the SDK's client): the same
 * URL for the same base and path, without parsing it again per call.
 */
export class FetchSignalOpenAI extends OpenAI {
  /**
   * `buildURL`'s answers for calls without a query, by path: the SDK parses the URL (and
   * takes its query apart) on every call, for the one or two paths a gateway calls all the
   * time. Only while the client has no default query (its own option, fixed per client):
   * then the answer depends on nothing else the SDK reads but the base URLs, kept with it.
   */
  readonly #urls = new Map<string, CachedURL>();

  override buildURL(...[path, query, defaultBaseURL]: Parameters<OpenAI['buildURL']>): string {
    if ((query !== undefined && query !== null) || this.defaultQuery() !== undefined) return super.buildURL(path, query, defaultBaseURL);
    const cached = this.#urls.get(path);
    // `baseURL` is a public field (a caller may change it): checked on every call.
    if (cached !== undefined && cached.baseURL === this.baseURL && cached.defaultBaseURL === defaultBaseURL) return cached.url;
    const url = super.buildURL(path, query, defaultBaseURL);
    if (this.#urls.size >= MAX_CACHED_URLS) this.#urls.clear();
    this.#urls.set(path, { baseURL: this.baseURL, defaultBaseURL, url });
    return url;
  }

  override fetchWithTimeout(...[url, init, ms, controller]: Parameters<FetchWithTimeout>): ReturnType<FetchWithTimeout> {
    const signal = init?.signal;
    // Only this realm's signals: the fetch checks what it is handed, and anything else (a
    // polyfill, another realm's signal) keeps the SDK's own way, a listener on it.
    if (init === undefined || !(signal instanceof AbortSignal)) return super.fetchWithTimeout(url, init, ms, controller);
    const { signal: _caller, ...rest } = init;
    return super.fetchWithTimeout(url, { ...rest, [FETCH_SIGNAL]: signal } as typeof init, ms, controller);
  }
}
