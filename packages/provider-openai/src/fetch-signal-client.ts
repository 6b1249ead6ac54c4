import OpenAI from 'openai';
import { VERSION } from 'openai/version';
import { UpstreamTimeoutError } from '@toolwire/core';
import { FETCH_SIGNAL } from '@toolwire/core/provider';
import { RememberedAuthHeaders, RememberedRequestHeaders, authHeadersKey, requestHeadersKey, sameAuthHeadersKey } from './remembered-sdk-headers.ts';
import type { SdkBuildHeadersInput, SdkNullableHeaders } from './remembered-sdk-headers.ts';

type FetchWithTimeout = OpenAI['fetchWithTimeout'];
type BuildRequest = OpenAI['buildRequest'];
type AuthHeaders = OpenAI['authHeaders'];

/**
 * What the SDK's client keeps that its type declarations mark `private` (plain properties and
 * methods in JavaScript; openai 7.57.0).
 */
interface SdkClientInternals {
  /** A third-party provider's runtime (`provider` option): it owns authentication. */
  _provider: unknown;
  /** Workload identity (legacy or X.509): tokens that change over time. */
  _workloadIdentityAuth: unknown;
  buildHeaders(input: SdkBuildHeadersInput): Promise<Headers>;
  /** Waits, then sends the request made from `options` again (after a failed fetch or a retryable status). */
  retryRequest(options: object, ...rest: unknown[]): Promise<unknown>;
}

/** The SDK's own client methods, looked up per call (so a test's spy on them sees the calls). */
const sdk = OpenAI.prototype as unknown as SdkClientInternals;

/**
 * The client methods the SDK's header building calls on `this` (openai 7.57.0), and what they
 * were when this module loaded. A client whose methods are no longer these (replaced on the
 * instance, or the SDK's prototype patched since, as instrumentation does) may answer
 * differently from one call to the next: its headers are then never remembered.
 */
const HEADER_METHOD_NAMES = ['getUserAgent', 'validateHeaders', 'bearerAuth', 'adminAPIKeyAuth', '_callApiKey', '_hasApiKeyProvider', 'defaultIdempotencyKey'] as const;

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
 * It also remembers answers of the SDK's own methods that every request calls and that
 * answer the same for the same inputs: `buildURL` (the same URL for the same base and path,
 * without parsing it again per call), and `authHeaders` and `buildHeaders` (the same headers
 * for the same key, options, retry and timeout, without the SDK's header merging: an undici
 * `Headers`, Sets and a regex test per name, several times per request). Each answer is the
 * SDK's own, made by it the first time; the methods answer from memory only for inputs they
 * fully key, and leave anything else to the SDK (workload identity, a key function, a
 * third-party provider, per-request headers, an input key a later SDK version may add).
 *
 * A fetch that fails with core's `UpstreamTimeoutError` (the server answered nothing within
 * the fetch's idle timeout) ends the call with that error: the SDK would send it again as
 * after any other failed fetch, and wait as long again each time.
 */
export class FetchSignalOpenAI extends OpenAI {
  /**
   * `buildURL`'s answers for calls without a query, by path: the SDK parses the URL (and
   * takes its query apart) on every call, for the one or two paths a gateway calls all the
   * time. Only while the client has no default query (its own option, fixed per client):
   * then the answer depends on nothing else the SDK reads but the base URLs, kept with it.
   */
  readonly #urls = new Map<string, CachedURL>();

  readonly #authHeaders = new RememberedAuthHeaders();

  readonly #requestHeaders = new RememberedRequestHeaders();

  /**
   * The request options each request the SDK built came from (by the request it built), and
   * the options whose fetch failed with an `UpstreamTimeoutError` (with that error). The SDK
   * sends a request again after any failed fetch but an abort; an upstream that answered
   * nothing within the fetch's idle timeout would only be waited for as long again, so
   * `retryRequest` throws that error instead (see there).
   */
  readonly #requestOptions = new WeakMap<object, object>();

  readonly #stopRetry = new WeakMap<object, UpstreamTimeoutError>();

  static {
    // The SDK names the client in `User-Agent` by its class (`${this.constructor.name}/JS …`),
    // so that another client (its `AzureOpenAI`) says which it is. This subclass is the SDK's
    // client with a different way to its fetch: it says what a plain client says. (`private`
    // in the SDK's types, an ordinary method in JavaScript: replaced on this prototype.)
    Object.defineProperty(this.prototype, 'getUserAgent', {
      configurable: true,
      writable: true,
      value(): string {
        return `OpenAI/JS ${VERSION}`;
      },
    });
    // `retryRequest` (also `private` in the SDK's types): the SDK calls it with the request's
    // options after a failed fetch; a fetch that failed with an `UpstreamTimeoutError` ends
    // the call with that error instead of another attempt.
    Object.defineProperty(this.prototype, 'retryRequest', {
      configurable: true,
      writable: true,
      value(this: FetchSignalOpenAI, options: object, ...rest: unknown[]): Promise<unknown> {
        const stop = this.#stopRetry.get(options);
        if (stop !== undefined) {
          this.#stopRetry.delete(options);
          return Promise.reject(stop);
        }
        return sdk.retryRequest.call(this, options, ...rest);
      },
    });
    // The SDK's `buildRequest` calls `this.buildHeaders(…)`: an ordinary method in JavaScript
    // that its type declarations mark `private`, which TypeScript lets a subclass replace only
    // on its prototype. Same name, same contract; the SDK's own method answers whatever
    // `#buildHeaders` does not remember.
    Object.defineProperty(this.prototype, 'buildHeaders', {
      configurable: true,
      writable: true,
      value(this: FetchSignalOpenAI, ...args: unknown[]): Promise<Headers> {
        return this.#buildHeaders(args);
      },
    });
  }

  /**
   * Whether this client's state lets the SDK's header methods answer the same for the same
   * arguments: no further subclass (which could override what they call), no third-party
   * provider, no workload identity (tokens change), no idempotency header (a fresh key per
   * request), and a plain API key rather than a function that may give a new one per call.
   */
  #headersAreKeyable(): boolean {
    const internals = this as unknown as SdkClientInternals;
    if (
      Object.getPrototypeOf(this) !== FetchSignalOpenAI.prototype ||
      internals._provider !== undefined ||
      internals._workloadIdentityAuth !== undefined ||
      this.idempotencyHeader !== undefined
    ) {
      return false;
    }
    const methods = this as unknown as Record<string, unknown>;
    for (let i = 0; i < HEADER_METHOD_NAMES.length; i++) if (methods[HEADER_METHOD_NAMES[i] as string] !== headerMethods[i]) return false;
    return !this._hasApiKeyProvider();
  }

  protected override async authHeaders(...args: Parameters<AuthHeaders>): Promise<SdkNullableHeaders | undefined> {
    const key = this.#headersAreKeyable() ? authHeadersKey(this, args) : undefined;
    if (key === undefined) return super.authHeaders(...args);
    const remembered = this.#authHeaders.find(key);
    if (remembered !== undefined) return remembered;
    const answer = await super.authHeaders(...args);
    // Kept only if nothing the key holds changed while the SDK made the answer. For the schemes
    // keyed (one key, see `authHeadersKey`) the SDK reads it before its first await: a guard
    // for SDK versions that would read it later.
    const after = this.#headersAreKeyable() ? authHeadersKey(this, args) : undefined;
    return after !== undefined && sameAuthHeadersKey(after, key) ? this.#authHeaders.remember(key, answer) : answer;
  }

  async #buildHeaders(args: unknown[]): Promise<Headers> {
    const defaults = this.#headersAreKeyable() ? this.#requestHeaders.defaults(this._options.defaultHeaders) : undefined;
    const key = defaults !== undefined ? requestHeadersKey(this, this.#authHeaders, defaults, args) : undefined;
    if (key === undefined) return sdk.buildHeaders.apply(this, args as [SdkBuildHeadersInput]);
    return this.#requestHeaders.find(key) ?? this.#requestHeaders.remember(key, await sdk.buildHeaders.apply(this, args as [SdkBuildHeadersInput]));
  }

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

  override async buildRequest(...args: Parameters<BuildRequest>): ReturnType<BuildRequest> {
    const built = await super.buildRequest(...args);
    this.#requestOptions.set(built.req, args[0]);
    return built;
  }

  override fetchWithTimeout(...[url, init, ms, controller]: Parameters<FetchWithTimeout>): ReturnType<FetchWithTimeout> {
    const signal = init?.signal;
    // Only this realm's signals: the fetch checks what it is handed, and anything else (a
    // polyfill, another realm's signal) keeps the SDK's own way, a listener on it.
    const response =
      init === undefined || !(signal instanceof AbortSignal)
        ? super.fetchWithTimeout(url, init, ms, controller)
        : super.fetchWithTimeout(url, { ...withoutSignal(init), [FETCH_SIGNAL]: signal } as typeof init, ms, controller);
    return init === undefined ? response : response.catch((error: unknown) => this.#failed(init, error));
  }

  /** A failed fetch of the request `init`: an upstream that answered nothing is not sent again (see `#stopRetry`). */
  #failed(init: RequestInit, error: unknown): never {
    const options = this.#requestOptions.get(init);
    if (options !== undefined && UpstreamTimeoutError.isInstance(error)) this.#stopRetry.set(options, error);
    throw error;
  }
}

/** `init` without its `signal`. */
function withoutSignal(init: RequestInit): RequestInit {
  const { signal: _caller, ...rest } = init;
  return rest;
}

/** `HEADER_METHOD_NAMES` as this class has them (the SDK's own, and its `getUserAgent`). */
const headerMethods: readonly unknown[] = HEADER_METHOD_NAMES.map((name) => (FetchSignalOpenAI.prototype as unknown as Record<string, unknown>)[name]);
