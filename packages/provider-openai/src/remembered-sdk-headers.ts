import type OpenAI from 'openai';

/**
 * The SDK's parsed headers (its internal `NullableHeaders`: the values, and the names a caller
 * set to `null` to remove a default). The SDK brands them with a module-private symbol, so only
 * the SDK makes one; a copy made by spreading keeps that brand.
 */
export type SdkNullableHeaders = NonNullable<Awaited<ReturnType<OpenAI['authHeaders']>>>;

/** The options of one SDK request as `buildRequest` gets them. */
export type SdkRequestOptions = Parameters<OpenAI['buildRequest']>[0];

/**
 * What `buildRequest` hands the client's `buildHeaders` method in openai 7.57.0 (that method
 * is `private` in the SDK's type declarations, an ordinary method in JavaScript).
 */
export interface SdkBuildHeadersInput {
  options: SdkRequestOptions;
  method: string;
  bodyHeaders: unknown;
  authenticationHeaders: SdkNullableHeaders | undefined;
  retryCount: number;
  x509Headers?: unknown;
  x509Timeout?: unknown;
  x509Tenant?: unknown;
}

/**
 * The keys of the SDK's request options in openai 7.57.0 (`RequestOptions` and
 * `FinalRequestOptions`). A key outside this list may be an input a later SDK version reads,
 * so an answer is then never remembered.
 */
const REQUEST_OPTION_KEYS: ReadonlySet<string> = new Set([
  'method',
  'path',
  'query',
  'body',
  'headers',
  'maxRetries',
  'stream',
  'timeout',
  'httpAgent',
  'fetchOptions',
  'signal',
  'idempotencyKey',
  'defaultBaseURL',
  '__metadata',
  '__binaryRequest',
  '__binaryResponse',
  '__streamClass',
  '__streamMode',
  '__security',
  '__synthesizeEventData',
]);

/** The `__metadata` keys openai 7.57.0 writes or reads (of them, header building reads only `helperMethod`). */
const METADATA_KEYS: ReadonlySet<string> = new Set([
  'captureResponseParser',
  'finalizeMultipart',
  'finalizedMultipart',
  'hasStreamingBody',
  'helperMethod',
  'model',
  'preserveMultipartFilenames',
  'streamFromBody',
  'workloadIdentityTokenRefreshed',
]);

/** What `buildRequest` passes to `buildHeaders` in openai 7.57.0. */
const BUILD_HEADERS_KEYS: ReadonlySet<string> = new Set([
  'options',
  'method',
  'bodyHeaders',
  'authenticationHeaders',
  'retryCount',
  'x509Headers',
  'x509Timeout',
  'x509Tenant',
]);

/** The authentication schemes an SDK operation may allow. */
const SCHEME_KEYS: ReadonlySet<string> = new Set(['bearerAuth', 'adminAPIKeyAuth']);

/** Answers kept per client: a gateway needs one or two (a retry adds one per attempt). */
const MAX_ENTRIES = 16;

function hasOnlyKeys(value: object, known: ReadonlySet<string>): boolean {
  // `for…in` also sees inherited enumerable keys, which the SDK's spreads would read too.
  for (const key in value) if (!known.has(key)) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether request options hold only inputs openai 7.57.0 knows (also in their `__metadata`). */
export function hasKnownRequestOptions(options: unknown): options is SdkRequestOptions {
  if (typeof options !== 'object' || options === null || !hasOnlyKeys(options, REQUEST_OPTION_KEYS)) return false;
  const metadata = (options as SdkRequestOptions).__metadata;
  return metadata === undefined || (typeof metadata === 'object' && metadata !== null && hasOnlyKeys(metadata, METADATA_KEYS));
}

/** What decides `authHeaders`' answer on a client with a plain key (no key function, no workload identity). */
export interface AuthHeadersKey {
  apiKey: string | null;
  adminAPIKey: string | null | undefined;
  /** Whether the operation allows a bearer key (`schemes.bearerAuth`). */
  bearer: boolean;
  /** Whether the operation allows the admin key (`schemes.adminAPIKeyAuth`). */
  admin: boolean;
}

/**
 * The key of an `authHeaders(opts, schemes)` call, or `undefined` when an argument holds
 * something this code does not know (then the SDK answers). The SDK's own default for
 * `schemes` allows both keys.
 */
export function authHeadersKey(client: Pick<OpenAI, 'apiKey' | 'adminAPIKey'>, args: readonly unknown[]): AuthHeadersKey | undefined {
  const [opts, schemes] = args;
  if (args.length > 2 || !hasKnownRequestOptions(opts)) return undefined;
  const { apiKey, adminAPIKey } = client;
  // The SDK writes the key into a template string: only strings (and no key) read the same every time.
  if (apiKey !== null && typeof apiKey !== 'string') return undefined;
  if (adminAPIKey !== null && adminAPIKey !== undefined && typeof adminAPIKey !== 'string') return undefined;
  if (schemes !== undefined && (!isPlainObject(schemes) || !hasOnlyKeys(schemes, SCHEME_KEYS))) return undefined;
  // The SDK's own default allows both keys.
  const bearer = schemes === undefined || Boolean(schemes.bearerAuth);
  const admin = schemes === undefined || Boolean(schemes.adminAPIKeyAuth);
  // With both allowed, the SDK reads the admin key a few turns after the call began: a key set
  // and put back meanwhile would be answered under the state before. Only one is keyed (no
  // operation of the SDK allows both; the gateway's calls allow the bearer key only).
  if (bearer && admin) return undefined;
  return { apiKey, adminAPIKey, bearer, admin };
}

/** Whether two `authHeaders` calls read the same inputs. */
export function sameAuthHeadersKey(a: AuthHeadersKey, b: AuthHeadersKey): boolean {
  return a.apiKey === b.apiKey && a.adminAPIKey === b.adminAPIKey && a.bearer === b.bearer && a.admin === b.admin;
}

/**
 * Marks the copies a `RememberedAuthHeaders` handed out (its value: that memo). A property on
 * the copy rather than a `WeakSet` of copies: one per request, and a weak collection's entries
 * cost more to add and to collect than the property does.
 */
const HANDED_OUT = Symbol('handed out by');

/** The SDK's parsed headers as handed out: a copy that shares nothing with the kept answer. */
type HandedOut = SdkNullableHeaders & { [HANDED_OUT]?: RememberedAuthHeaders };

/** An input this code cannot key (then the SDK answers). */
export const NOT_KEYED = Symbol('not keyed');

/**
 * `authHeaders`' answers by key. Each call gets its own copy (the caller may change it), marked
 * as handed out here, so `buildHeaders` can key its answer by what one of them still holds.
 */
export class RememberedAuthHeaders {
  readonly #entries: { key: AuthHeadersKey; headers: SdkNullableHeaders }[] = [];

  /** A copy of the answer kept for `key`, or `undefined` when there is none. */
  find(key: AuthHeadersKey): SdkNullableHeaders | undefined {
    for (const entry of this.#entries) if (sameAuthHeadersKey(entry.key, key)) return this.#copy(entry.headers);
    return undefined;
  }

  /** Keeps the SDK's `answer` for `key`, and hands out a copy. */
  remember(key: AuthHeadersKey, answer: SdkNullableHeaders | undefined): SdkNullableHeaders | undefined {
    if (answer === undefined) return answer;
    if (this.#entries.length >= MAX_ENTRIES) this.#entries.length = 0;
    this.#entries.push({ key, headers: answer });
    return this.#copy(answer);
  }

  /**
   * The `Authorization` value of headers this memo handed out (`null`: none), checked against
   * what they hold now; `NOT_KEYED` for anything else, or for headers changed since in a way
   * an answer keyed by that value would miss.
   */
  authorizationOf(headers: HandedOut | null | undefined): string | null | typeof NOT_KEYED {
    // No authentication headers (the SDK takes `null` as it takes `undefined`).
    if (headers === undefined || headers === null) return null;
    if (headers[HANDED_OUT] !== this) return NOT_KEYED;
    const { values, nulls } = headers;
    if (!(values instanceof Headers) || !(nulls instanceof Set) || nulls.size !== 0) return NOT_KEYED;
    let authorization: string | null = null;
    for (const [name, value] of values) {
      if (name !== 'authorization' || authorization !== null) return NOT_KEYED;
      authorization = value;
    }
    return authorization;
  }

  /** A fresh copy (the spread keeps the SDK's brand), marked as this memo's. */
  #copy(headers: SdkNullableHeaders): HandedOut {
    return { ...headers, values: new Headers(headers.values), nulls: new Set(headers.nulls), [HANDED_OUT]: this };
  }
}

/**
 * What decides `buildHeaders`' answer besides the client's constants (its user agent, the
 * platform headers the SDK computes once per process).
 */
export interface RequestHeadersKey {
  /** The client's default headers as read for this call (see `RememberedRequestHeaders.defaults`). */
  defaults: DefaultHeadersSnapshot;
  retryCount: number;
  /** The request's own `timeout` option (the SDK sends `X-Stainless-Timeout` from it). */
  timeout: number | undefined;
  helperMethod: string | undefined;
  organization: string | null | undefined;
  project: string | null | undefined;
  authorization: string | null;
  /** The body's content type (`bodyHeaders`, made by the SDK's body encoder). */
  contentType: string | undefined;
}

/** `bodyHeaders` as the SDK's encoders make them: none, or one `content-type`. */
function bodyContentType(bodyHeaders: unknown): string | undefined | typeof NOT_KEYED {
  if (bodyHeaders === undefined) return undefined;
  if (!isPlainObject(bodyHeaders)) return NOT_KEYED;
  let contentType: string | undefined;
  for (const name in bodyHeaders) {
    const value = bodyHeaders[name];
    if (name !== 'content-type' || typeof value !== 'string') return NOT_KEYED;
    contentType = value;
  }
  return contentType;
}

/**
 * The key of a `buildHeaders(input)` call on a client with no idempotency header, provider or
 * workload identity, or `undefined` when the input holds something this code does not key:
 * per-request headers, X.509 snapshots, unknown keys (an input of a later SDK version), or
 * authentication headers `auth` did not hand out unchanged.
 */
export function requestHeadersKey(
  client: Pick<OpenAI, 'organization' | 'project'>,
  auth: RememberedAuthHeaders,
  defaults: DefaultHeadersSnapshot,
  args: readonly unknown[],
): RequestHeadersKey | undefined {
  const [input] = args;
  if (args.length !== 1 || !isPlainObject(input) || !hasOnlyKeys(input, BUILD_HEADERS_KEYS)) return undefined;
  const { options, bodyHeaders, authenticationHeaders, retryCount, x509Headers, x509Tenant } = input as unknown as SdkBuildHeadersInput;
  if (x509Headers !== undefined || x509Tenant !== undefined || typeof retryCount !== 'number') return undefined;
  // Per-request headers (the gateway sends none) come in too many shapes to key cheaply.
  if (!hasKnownRequestOptions(options) || (options.headers !== undefined && options.headers !== null)) return undefined;
  const { timeout } = options;
  if (timeout !== undefined && typeof timeout !== 'number') return undefined;
  const { organization, project } = client;
  if ((organization !== null && organization !== undefined && typeof organization !== 'string') || (project !== null && project !== undefined && typeof project !== 'string')) return undefined;
  const authorization = auth.authorizationOf(authenticationHeaders);
  const contentType = bodyContentType(bodyHeaders);
  if (authorization === NOT_KEYED || contentType === NOT_KEYED) return undefined;
  const helperMethod = options.__metadata?.['helperMethod'];
  return { defaults, retryCount, timeout, helperMethod: typeof helperMethod === 'string' ? helperMethod : undefined, organization, project, authorization, contentType };
}

function sameRequestKey(a: RequestHeadersKey, b: RequestHeadersKey): boolean {
  return (
    // The snapshot's identity: an answer made before the default headers changed never matches after.
    a.defaults === b.defaults &&
    a.retryCount === b.retryCount &&
    a.timeout === b.timeout &&
    a.helperMethod === b.helperMethod &&
    a.organization === b.organization &&
    a.project === b.project &&
    a.authorization === b.authorization &&
    a.contentType === b.contentType
  );
}

/** The client's default headers as the SDK reads them (a new snapshot whenever they change). */
export interface DefaultHeadersSnapshot {
  headers: unknown;
  names: string[];
  values: (string | null | undefined)[];
}

/** A plain object of strings (or `null`/`undefined`, which remove or skip) read as the SDK reads it. */
function snapshotDefaults(headers: unknown): DefaultHeadersSnapshot | undefined {
  if (headers === undefined || headers === null) return { headers, names: [], values: [] };
  // An iterable object is read through its iterator by the SDK, whatever its properties say.
  if (!isPlainObject(headers) || Symbol.iterator in headers) return undefined;
  // Data properties only: a getter could answer the SDK differently from this snapshot.
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(headers))) if (!('value' in descriptor)) return undefined;
  const names = Object.keys(headers);
  const values: (string | null | undefined)[] = [];
  for (const name of names) {
    const value = headers[name];
    if (value !== null && value !== undefined && typeof value !== 'string') return undefined;
    values.push(value);
  }
  return { headers, names, values };
}

function matchesSnapshot(headers: unknown, snapshot: DefaultHeadersSnapshot): boolean {
  if (headers !== snapshot.headers) return false;
  if (headers === undefined || headers === null) return true;
  // The same object may have been changed in place: its names, their order and values are read
  // again, as data (a getter defined since is never called here: the SDK would read it once).
  if (typeof headers !== 'object' || Symbol.iterator in headers) return false;
  const names = Object.keys(headers);
  if (names.length !== snapshot.names.length) return false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const descriptor = Object.getOwnPropertyDescriptor(headers, name);
    if (name !== snapshot.names[i] || descriptor === undefined || !('value' in descriptor) || descriptor.value !== snapshot.values[i]) return false;
  }
  return true;
}

/**
 * `buildHeaders`' answers by key, for one client. An answer is an undici `Headers` the SDK
 * goes on to change (a multipart body's content type) and hands to the `fetch`, which may
 * change it too: each call gets its own copy, and the kept one is never handed out.
 */
export class RememberedRequestHeaders {
  readonly #entries: { key: RequestHeadersKey; headers: Headers }[] = [];
  #defaults: DefaultHeadersSnapshot = { headers: undefined, names: [], values: [] };

  /**
   * The snapshot of the client's default headers for a key (the same object while they stay
   * the same), or `undefined` when they are not keyable. When they changed, the kept answers
   * are forgotten (they could no longer match).
   */
  defaults(defaultHeaders: unknown): DefaultHeadersSnapshot | undefined {
    if (matchesSnapshot(defaultHeaders, this.#defaults)) return this.#defaults;
    const snapshot = snapshotDefaults(defaultHeaders);
    if (snapshot === undefined) return undefined;
    this.#defaults = snapshot;
    this.#entries.length = 0;
    return snapshot;
  }

  /** A copy of the answer kept for `key`, or `undefined` when there is none. */
  find(key: RequestHeadersKey): Headers | undefined {
    for (const entry of this.#entries) if (sameRequestKey(entry.key, key)) return new Headers(entry.headers);
    return undefined;
  }

  /** Keeps a copy of the SDK's `answer` for `key`; `answer` itself goes to the caller. */
  remember(key: RequestHeadersKey, answer: Headers): Headers {
    if (this.#entries.length >= MAX_ENTRIES) this.#entries.length = 0;
    this.#entries.push({ key, headers: new Headers(answer) });
    return answer;
  }
}
