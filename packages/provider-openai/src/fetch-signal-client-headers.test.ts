// FetchSignalOpenAI remembers the SDK's `authHeaders` and `buildHeaders` answers. Its answers
// must be the SDK's own: checked against a plain SDK client given the same options and the
// same changes, over generated requests, and against a real local server.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FetchSignalOpenAI } from './fetch-signal-client.ts';

type ClientOptions = NonNullable<ConstructorParameters<typeof OpenAI>[0]>;
type RequestOptions = Parameters<OpenAI['buildRequest']>[0];
type Schemes = { bearerAuth?: boolean; adminAPIKeyAuth?: boolean };
interface NullableHeaders {
  values: Headers;
  nulls: Set<string>;
}

/** The client methods and fields under test that the SDK's types keep protected or private. */
interface HeaderInternals {
  authHeaders(opts: RequestOptions, schemes?: Schemes): Promise<NullableHeaders | undefined>;
  buildHeaders(input: Record<string, unknown>): Promise<Headers>;
  _options: { defaultHeaders?: unknown };
}
const internals = (client: OpenAI): HeaderInternals => client as unknown as HeaderInternals;
const sdkMethods = OpenAI.prototype as unknown as HeaderInternals;

/** A plain SDK client: ours sends the `User-Agent` it sends (the SDK would write its class name there). */
const Reference = OpenAI;

/** The SDK's request headers for `options`, or the message it throws. */
async function headersOf(client: OpenAI, options: RequestOptions, retryCount: number): Promise<[string, string][] | string> {
  try {
    const { req } = await client.buildRequest(options, { retryCount });
    return [...(req.headers as Headers)];
  } catch (error) {
    return `throws: ${(error as Error).message}`;
  }
}

/** What a promise gives: its value, or the message it fails with. */
async function outcome<T>(promise: Promise<T>): Promise<T | string> {
  try {
    return await promise;
  } catch (error) {
    return `throws: ${(error as Error).message}`;
  }
}

/** Seeded (mulberry32), so a failing case can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BODIES = ['json', 'none', 'undefined-body', 'text-typed', 'text', 'form', 'url-params', 'bytes', 'upload'] as const;
type BodyKind = (typeof BODIES)[number];

/** One generated request, built twice (once per client: the SDK changes the options it gets). */
interface RequestCase {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  body: BodyKind;
  headers: number;
  timeout: number | undefined;
  metadata: number;
  security: number;
  retryCount: number;
}

/** Per-request headers in every shape the SDK takes (index 0: none, the gateway's case). */
const REQUEST_HEADERS: (() => RequestOptions['headers'])[] = [
  () => undefined,
  () => null,
  () => ({ 'X-Request': 'r1' }),
  () => ({ 'x-stainless-retry-count': null, 'OpenAI-Organization': 'org-from-request' }),
  () => [
    ['x-request', 'a'],
    ['X-Request', 'b'],
  ],
  () => new Headers({ authorization: 'Bearer from-request' }),
  () => ({ 'content-type': 'text/plain', 'x-list': ['1', '2'] }),
  () => ({ Authorization: null }),
];

const METADATA: (() => Record<string, unknown> | undefined)[] = [
  () => undefined,
  () => ({ streamFromBody: true }),
  () => ({ helperMethod: 'stream' }),
  () => ({ helperMethod: 'chat.completions.parse', model: 'gpt-x' }),
  () => ({ helperMethod: 42 }),
  () => ({ finalizeMultipart: true }),
];

const SECURITY: (Schemes | undefined)[] = [{ bearerAuth: true }, undefined, { adminAPIKeyAuth: true }, { bearerAuth: true, adminAPIKeyAuth: true }, {}];

async function body(kind: BodyKind): Promise<{ body?: unknown } & Pick<RequestOptions, 'headers'>> {
  switch (kind) {
    case 'json':
      return { body: { model: 'gpt-x', stream: false, messages: [{ role: 'user', content: 'Hi' }] } };
    case 'none':
      return {};
    case 'undefined-body':
      return { body: undefined };
    case 'text-typed':
      return { body: 'plain text', headers: { 'content-type': 'text/plain' } };
    case 'text':
      return { body: 'a string the SDK encodes as JSON' };
    case 'form': {
      const form = new FormData();
      form.set('purpose', 'fine-tune');
      return { body: form };
    }
    case 'url-params':
      return { body: new URLSearchParams({ a: '1' }) };
    case 'bytes':
      return { body: new TextEncoder().encode('bytes') };
    case 'upload':
      return { body: { purpose: 'assistants', file: await toFile(Buffer.from('file'), 'a.txt') } };
    default: {
      const never: never = kind;
      return never;
    }
  }
}

async function requestOptions(c: RequestCase): Promise<RequestOptions> {
  const { headers: bodyHeaders, ...withBody } = await body(c.body);
  const headers = c.headers === 0 ? bodyHeaders : REQUEST_HEADERS[c.headers]?.();
  const metadata = METADATA[c.metadata]?.();
  const security = SECURITY[c.security];
  return {
    method: c.method,
    path: '/files',
    ...withBody,
    ...(headers !== undefined ? { headers } : {}),
    ...(c.timeout !== undefined ? { timeout: c.timeout } : {}),
    ...(metadata !== undefined ? { __metadata: metadata } : {}),
    ...(security !== undefined ? { __security: security } : {}),
  };
}

/** A client's state that a caller may change between requests, the same on both clients. */
type StateChange = (clients: OpenAI[], sharedDefaults: Record<string, string | null>) => void;

const STATE_CHANGES: StateChange[] = [
  (clients) => clients.forEach((c) => (c.apiKey = 'sk-second')),
  (clients) => clients.forEach((c) => (c.apiKey = 'sk-first')),
  (clients) => clients.forEach((c) => (c.apiKey = null)),
  (clients) => clients.forEach((c) => (c.adminAPIKey = 'admin-key')),
  (clients) => clients.forEach((c) => (c.adminAPIKey = null)),
  (clients) => clients.forEach((c) => (c.organization = 'org-a')),
  (clients) => clients.forEach((c) => (c.organization = 'org-b')),
  (clients) => clients.forEach((c) => (c.organization = null)),
  (clients) => clients.forEach((c) => (c.project = 'proj-a')),
  (clients) => clients.forEach((c) => (c.project = null)),
  // The default headers object both clients were given, changed in place.
  (_, shared) => (shared['X-Default'] = 'changed'),
  (_, shared) => (shared['x-default'] = 'lower'),
  (_, shared) => (shared['Accept'] = 'text/event-stream'),
  (_, shared) => (shared['x-stainless-os'] = null),
  (_, shared) => {
    delete shared['x-default'];
    delete shared['Accept'];
    delete shared['x-stainless-os'];
    shared['X-Default'] = 'first';
  },
  // Replaced with another shape (the SDK takes `Headers` and arrays too; put back by the loop below).
  (clients) => clients.forEach((c) => (internals(c)._options.defaultHeaders = new Headers({ 'x-default': 'from-headers' }))),
  (clients) => clients.forEach((c) => (internals(c)._options.defaultHeaders = [['x-default', 'from-array']])),
];

const baseOptions = (defaultHeaders: Record<string, string | null>): ClientOptions => ({
  apiKey: 'sk-first',
  baseURL: 'http://127.0.0.1:9/v1',
  organization: null,
  project: null,
  defaultHeaders,
  fetch: () => Promise.reject(new Error('no request is sent in these tests')),
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('FetchSignalOpenAI header answers', () => {
  it("are the SDK's own over generated requests, client changes and callers that change the answer", async () => {
    const random = seeded(19);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const shared: Record<string, string | null> = { 'X-Default': 'first' };
    const ours = new FetchSignalOpenAI(baseOptions(shared));
    const sdk = new Reference(baseOptions(shared));
    const seen = new Set<string>();
    const sdkBuilds = vi.spyOn(sdkMethods, 'buildHeaders');
    const builtByTheSdk = () => sdkBuilds.mock.contexts.filter((c) => c === ours).length;
    let gatewayCases = 0;
    let gatewayMisses = 0;
    for (let i = 0; i < 800; i++) {
      if (random() < 0.15) pick(STATE_CHANGES)([ours, sdk], shared);
      else if (internals(ours)._options.defaultHeaders !== shared && random() < 0.3) {
        for (const client of [ours, sdk]) internals(client)._options.defaultHeaders = shared;
      }
      // Half the gateway's own request (its answers are reused), half anything.
      const gateway = random() < 0.5;
      const c: RequestCase =
        gateway
          ? { method: 'post', body: 'json', headers: 0, timeout: undefined, metadata: 1, security: 0, retryCount: random() < 0.9 ? 0 : 1 }
          : {
              method: pick(['get', 'post', 'put', 'patch', 'delete'] as const),
              body: pick(BODIES),
              headers: random() < 0.6 ? 0 : Math.floor(random() * REQUEST_HEADERS.length),
              timeout: pick([undefined, 1000, 1500, 999, 60_000]),
              metadata: Math.floor(random() * METADATA.length),
              security: Math.floor(random() * SECURITY.length),
              retryCount: Math.floor(random() * 4),
            };
      const expected = await headersOf(sdk, await requestOptions(c), c.retryCount);
      const options = await requestOptions(c);
      const before = builtByTheSdk();
      let actual: [string, string][] | string;
      try {
        const { req } = await ours.buildRequest(options, { retryCount: c.retryCount });
        const headers = req.headers as Headers;
        actual = [...headers];
        // What the SDK (a multipart body), a fetch or a hook may do to the headers it was handed.
        if (random() < 0.3) {
          headers.set('authorization', 'Bearer changed-by-caller');
          headers.append('accept', 'text/html');
          headers.delete('user-agent');
          headers.set('x-added', '1');
        }
      } catch (error) {
        actual = `throws: ${(error as Error).message}`;
      }
      // The multipart boundary is drawn at random per request.
      const boundaryless = (h: typeof actual) => (typeof h === 'string' ? h : h.map(([n, v]) => [n, v.replace(/boundary=\S+/u, 'boundary=…')]));
      expect(boundaryless(actual), `case ${i}: ${JSON.stringify(c)}`).toEqual(boundaryless(expected));
      if (gateway) {
        gatewayCases++;
        gatewayMisses += builtByTheSdk() - before;
      }
      seen.add(typeof expected === 'string' ? 'throws' : `${c.body} ${c.headers === 0 ? 'no' : 'own'} headers`);
    }
    // The generator reached what it is meant to cover, errors included, and answers came from memory.
    expect(seen).toContain('throws');
    expect(gatewayMisses / gatewayCases).toBeLessThan(0.5);
    for (const kind of BODIES) expect([...seen].some((s) => s.startsWith(`${kind} `)), kind).toBe(true);
  });

  it('follows default headers changed in place: values, names added, removed and reordered', async () => {
    const shared: Record<string, string | null> = { 'X-A': '1' };
    const ours = new FetchSignalOpenAI(baseOptions(shared));
    const sdk = new Reference(baseOptions(shared));
    const steps: (() => void)[] = [
      () => undefined,
      () => (shared['X-A'] = '2'),
      // The same name in another case: the SDK appends the second value to the first.
      () => (shared['x-a'] = '3'),
      () => {
        delete shared['X-A'];
        shared['X-A'] = '2';
      },
      () => delete shared['x-a'],
      () => (shared['Accept'] = null),
      () => delete shared['Accept'],
      // Another name with the same value.
      () => {
        delete shared['X-A'];
        shared['X-B'] = '2';
      },
      () => delete shared['X-B'],
    ];
    const options = (): RequestOptions => ({ method: 'post', path: '/chat/completions', body: {} });
    for (const [i, step] of steps.entries()) {
      step();
      const expected = await headersOf(sdk, options(), 0);
      // Twice: the second answer comes from memory.
      expect(await headersOf(ours, options(), 0), `step ${i}`).toEqual(expected);
      expect(await headersOf(ours, options(), 0), `step ${i}, again`).toEqual(expected);
    }
  });

  it('keeps no answer made from inputs that changed while it was being made', async () => {
    const shared: Record<string, string | null> = { 'X-A': '1' };
    const ours = new FetchSignalOpenAI(baseOptions(shared));
    const options = (): RequestOptions => ({ method: 'post', path: '/chat/completions', body: {} });
    const input = async () => ({
      options: options(),
      method: 'post',
      bodyHeaders: { 'content-type': 'application/json' },
      authenticationHeaders: await internals(ours).authHeaders(options(), { bearerAuth: true }),
      retryCount: 0,
    });
    // Default headers changed in place while an answer made from the old ones is on its way.
    const [first, second] = [await input(), await input()];
    const made = internals(ours).buildHeaders(first);
    shared['X-A'] = '2';
    const remade = internals(ours).buildHeaders(second);
    expect([(await made).get('x-a'), (await remade).get('x-a')]).toEqual(['1', '2']);
    expect((await internals(ours).buildHeaders(await input())).get('x-a')).toBe('2');

    // Both keys allowed: the SDK reads the admin key after an await, so such calls are never remembered
    // (an answer made with a key set meanwhile must not stand for the old one).
    const both = { bearerAuth: true, adminAPIKeyAuth: true };
    const pending = internals(ours).authHeaders(options(), both);
    ours.adminAPIKey = 'admin-key';
    expect((await pending)?.values.get('authorization')).toBe('Bearer admin-key');
    ours.adminAPIKey = null;
    expect((await internals(ours).authHeaders(options(), both))?.values.get('authorization')).toBe('Bearer sk-first');
  });

  it('answers as the SDK does where a client changes how it makes its headers, or holds defaults only the SDK reads right', async () => {
    const options = (extra: Record<string, unknown> = {}): RequestOptions => ({ method: 'post', path: '/chat/completions', body: {}, ...extra });
    // Each client its own options (its own default headers object): `changed` is called once per client.
    const pair = (changed: () => Partial<ClientOptions> = () => ({})) => [new Reference({ ...baseOptions({}), ...changed() }), new FetchSignalOpenAI({ ...baseOptions({}), ...changed() })] as const;
    const both = async (clients: readonly OpenAI[], extra: Record<string, unknown> = {}) => Promise.all(clients.map((c) => headersOf(c, options(extra), 0)));
    const same = async (clients: readonly OpenAI[], extra: Record<string, unknown> = {}) => {
      const [sdk, ours] = await both(clients, extra);
      expect(ours).toEqual(sdk);
      return sdk;
    };

    // Default headers that are iterable: the SDK reads them through the iterator.
    let trace = 't1';
    const iterable = () => ({ 'x-static': 's', *[Symbol.iterator]() { yield ['x-trace', trace]; } }) as unknown as Record<string, string>;
    const iterating = pair(() => ({ defaultHeaders: iterable() }));
    for (const t of ['t1', 't2', 't3']) {
      trace = t;
      const sdk = await same(iterating);
      expect(new Map(sdk as [string, string][]).get('x-trace')).toBe(t);
    }

    // A default header turned into a getter after the first request: read once per request, as by the SDK.
    const counted = pair(() => ({ defaultHeaders: { 'x-n': '0' } }));
    await same(counted);
    for (const client of counted) {
      let n = 0;
      Object.defineProperty(internals(client)._options.defaultHeaders, 'x-n', { enumerable: true, configurable: true, get: () => String(++n) });
    }
    for (let i = 0; i < 3; i++) await same(counted);

    // A method the SDK's header building calls, replaced on the instance after a first request.
    const agents = pair();
    await same(agents);
    for (const client of agents) (client as unknown as { getUserAgent: () => string }).getUserAgent = () => 'my-app/1.0';
    expect(new Map((await same(agents)) as [string, string][]).get('user-agent')).toBe('my-app/1.0');
    const rotating = pair();
    await same(rotating);
    for (const client of rotating) {
      (client as unknown as { bearerAuth: unknown }).bearerAuth = function (this: OpenAI, opts: RequestOptions) {
        // The SDK's own code makes the (branded) answer.
        return (OpenAI.prototype as unknown as { adminAPIKeyAuth: (o: RequestOptions) => unknown }).adminAPIKeyAuth.call({ adminAPIKey: 'rotated-token' }, opts);
      };
    }
    expect(new Map((await same(rotating)) as [string, string][]).get('authorization')).toBe('Bearer rotated-token');

    // The SDK's prototype patched after a first request (as instrumentation does).
    const patched = pair();
    await same(patched);
    const sdkPrototype = OpenAI.prototype as unknown as { validateHeaders: (...a: unknown[]) => void };
    const validate = sdkPrototype.validateHeaders;
    let validated = 0;
    sdkPrototype.validateHeaders = function (this: OpenAI, ...args: unknown[]) {
      validated++;
      validate.apply(this, args);
    };
    try {
      await same(patched);
      expect(validated).toBe(2);
    } finally {
      sdkPrototype.validateHeaders = validate;
    }

    // Authentication headers of `null` (an `authHeaders` replacement answering none): no authentication of its own.
    const nulls = pair(() => ({ defaultHeaders: { Authorization: 'Bearer from-defaults' } }));
    for (const client of nulls) (client as unknown as { authHeaders: () => Promise<null> }).authHeaders = () => Promise.resolve(null);
    expect(new Map((await same(nulls)) as [string, string][]).get('authorization')).toBe('Bearer from-defaults');
    const direct = await Promise.all(nulls.map((c) => outcome(internals(c).buildHeaders({ options: options(), method: 'post', bodyHeaders: undefined, authenticationHeaders: null, retryCount: 0 }).then((h) => [...h]))));
    expect(direct[1]).toEqual(direct[0]);

    // Both keys allowed: an admin key set and put back while the SDK is between its awaits is never kept for the state after.
    const security = { __security: { bearerAuth: true, adminAPIKeyAuth: true } };
    for (let ticks = 1; ticks <= 6; ticks++) {
      const answers: (string | null | undefined)[][] = [];
      for (const client of pair()) {
        const pending = internals(client).authHeaders(options(security), security.__security);
        client.adminAPIKey = 'temporary-admin';
        for (let i = 0; i < ticks; i++) await Promise.resolve();
        client.adminAPIKey = null;
        const first = (await pending)?.values.get('authorization');
        const later = new Map((await headersOf(client, options(security), 0)) as [string, string][]).get('authorization');
        answers.push([first, later]);
      }
      expect(answers[1]).toEqual(answers[0]);
    }
  });

  it('answers a real request from memory the second time, and sends what the SDK sends, retries included', async () => {
    const received: Record<string, string | string[] | undefined>[] = [];
    let answered = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.headers);
        // Every third request fails once with a 500 the SDK retries.
        if (answered++ % 3 === 0) {
          res.writeHead(500, { 'content-type': 'application/json', 'retry-after-ms': '1' });
          res.end(JSON.stringify({ error: { message: 'try again', type: 'server_error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'gpt-x', choices: [] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const options: ClientOptions = { apiKey: 'sk-test', baseURL, organization: 'org-a', maxRetries: 2, defaultHeaders: { 'X-Team': 'a' } };
      const build = vi.spyOn(sdkMethods, 'buildHeaders');
      const auth = vi.spyOn(sdkMethods, 'authHeaders');
      const sent = async (client: OpenAI): Promise<Record<string, string | string[] | undefined>[]> => {
        received.length = 0;
        answered = 0;
        for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }] });
        await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }] }, { timeout: 30_000 });
        // Connection-level headers differ per socket, not per client.
        return received.map(({ connection: _c, host: _h, 'content-length': _l, ...rest }) => rest);
      };
      const expected = await sent(new Reference(options));
      const ours = new FetchSignalOpenAI(options);
      build.mockClear();
      auth.mockClear();
      expect(await sent(ours)).toEqual(expected);
      expect(expected.map((h) => h['x-stainless-retry-count'])).toEqual(['0', '1', '0', '0', '1', '0']);
      // The SDK built headers once per distinct key (retry 0, retry 1, the request's own timeout), not per request.
      expect(build.mock.contexts.filter((c) => c === ours)).toHaveLength(3);
      expect(auth.mock.contexts.filter((c) => c === ours)).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("hands each caller its own copy: a changed answer never reaches the next request", async () => {
    const ours = new FetchSignalOpenAI(baseOptions({}));
    const json = (): RequestOptions => ({ method: 'post', path: '/chat/completions', body: { model: 'gpt-x' } });
    const first = await ours.buildRequest(json());
    const firstHeaders = first.req.headers as Headers;
    const pristine = [...firstHeaders];
    firstHeaders.set('content-type', 'multipart/form-data; boundary=x');
    firstHeaders.delete('authorization');
    const second = await ours.buildRequest(json());
    expect([...(second.req.headers as Headers)]).toEqual(pristine);
    expect(second.req.headers).not.toBe(first.req.headers);

    const authOnce = await internals(ours).authHeaders(json(), { bearerAuth: true });
    authOnce?.values.set('authorization', 'Bearer changed');
    authOnce?.nulls.add('x-removed');
    const authTwice = await internals(ours).authHeaders(json(), { bearerAuth: true });
    expect([...(authTwice?.values ?? [])]).toEqual([['authorization', 'Bearer sk-first']]);
    expect(authTwice?.nulls.size).toBe(0);
  });

  it('keys an authentication answer by what it holds: one changed by its caller gets the SDK to answer', async () => {
    const ours = new FetchSignalOpenAI(baseOptions({}));
    const sdk = new Reference(baseOptions({}));
    const options = (): RequestOptions => ({ method: 'post', path: '/chat/completions', body: {} });
    const input = (authenticationHeaders: NullableHeaders | undefined) => ({
      options: options(),
      method: 'post',
      bodyHeaders: { 'content-type': 'application/json' },
      authenticationHeaders,
      retryCount: 0,
    });
    // Warm: the plain answer is remembered.
    await internals(ours).buildHeaders(input(await internals(ours).authHeaders(options(), { bearerAuth: true })));
    for (const change of [
      (h: NullableHeaders) => h.values.set('authorization', 'Bearer other'),
      (h: NullableHeaders) => h.values.set('x-extra', '1'),
      // Another header with the remembered key's value: must not read as that key.
      (h: NullableHeaders) => h.values.set('x-extra', 'Bearer sk-first'),
      (h: NullableHeaders) => h.values.delete('authorization'),
      (h: NullableHeaders) => h.nulls.add('x-stainless-lang'),
    ]) {
      const mine = await internals(ours).authHeaders(options(), { bearerAuth: true });
      const theirs = await internals(sdk).authHeaders(options(), { bearerAuth: true });
      if (mine === undefined || theirs === undefined) throw new Error('expected authentication headers');
      change(mine);
      change(theirs);
      const entries = async (headers: Promise<Headers>) => {
        const answer = await outcome(headers);
        return typeof answer === 'string' ? answer : [...answer];
      };
      expect(await entries(internals(ours).buildHeaders(input(mine)))).toEqual(await entries(internals(sdk).buildHeaders(input(theirs))));
    }
  });
});

describe('FetchSignalOpenAI header answers fall back to the SDK', () => {
  const options = (extra: Record<string, unknown> = {}): RequestOptions => ({ method: 'post', path: '/chat/completions', body: {}, ...extra });

  /** Calls `call` twice and counts how often the SDK's own method ran for our client. */
  async function sdkCalls(method: 'buildHeaders' | 'authHeaders', call: (client: FetchSignalOpenAI) => Promise<unknown>): Promise<number> {
    const client = new FetchSignalOpenAI(baseOptions({}));
    const spy = vi.spyOn(sdkMethods, method);
    await call(client);
    await call(client);
    return spy.mock.contexts.filter((c) => c === client).length;
  }

  const buildInput = async (client: FetchSignalOpenAI, extra: Record<string, unknown> = {}, requestExtra: Record<string, unknown> = {}) => ({
    options: options(requestExtra),
    method: 'post',
    bodyHeaders: { 'content-type': 'application/json' },
    authenticationHeaders: await internals(client).authHeaders(options(), { bearerAuth: true }),
    retryCount: 0,
    ...extra,
  });

  it('remembers when every input is known (the baseline of the cases below)', async () => {
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c)))).toBe(1);
    expect(await sdkCalls('authHeaders', (c) => internals(c).authHeaders(options(), { bearerAuth: true }))).toBe(1);
  });

  it('on an argument key it does not know (an input of a later SDK version)', async () => {
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, { futureInput: 'x' })))).toBe(2);
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, {}, { futureOption: true })))).toBe(2);
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, {}, { __metadata: { futureMetadata: 1 } })))).toBe(2);
    expect(await sdkCalls('buildHeaders', async (c) => (internals(c).buildHeaders as (...a: unknown[]) => Promise<Headers>)(await buildInput(c), 'extra'))).toBe(2);
    expect(await sdkCalls('authHeaders', (c) => internals(c).authHeaders(options({ futureOption: true }), { bearerAuth: true }))).toBe(2);
    expect(await sdkCalls('authHeaders', (c) => internals(c).authHeaders(options(), { bearerAuth: true, futureScheme: true } as Schemes))).toBe(2);
    expect(await sdkCalls('authHeaders', (c) => (internals(c).authHeaders as (...a: unknown[]) => Promise<unknown>)(options(), { bearerAuth: true }, 'extra'))).toBe(2);
  });

  it('on inputs it does not key: per-request headers, X.509 snapshots, a body header it does not know', async () => {
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, {}, { headers: { 'x-request': '1' } })))).toBe(2);
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, { x509Tenant: { organization: null, project: null } })))).toBe(2);
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, { bodyHeaders: { 'content-type': 'a', 'x-b': 'b' } })))).toBe(2);
    // Authentication headers this client did not hand out (here: another client's).
    const other = new Reference(baseOptions({}));
    expect(await sdkCalls('buildHeaders', async (c) => internals(c).buildHeaders(await buildInput(c, { authenticationHeaders: await internals(other).authHeaders(options()) })))).toBe(2);
  });

  it('for a key function, a subclass, or default headers it cannot snapshot', async () => {
    const keyFunction = new FetchSignalOpenAI({ ...baseOptions({}), apiKey: () => Promise.resolve('sk-rotating') });
    const spy = vi.spyOn(sdkMethods, 'authHeaders');
    await internals(keyFunction).authHeaders(options(), { bearerAuth: true });
    await internals(keyFunction).authHeaders(options(), { bearerAuth: true });
    expect(spy.mock.contexts.filter((c) => c === keyFunction)).toHaveLength(2);

    class Further extends FetchSignalOpenAI {}
    const further = new Further(baseOptions({}));
    await internals(further).authHeaders(options(), { bearerAuth: true });
    await internals(further).authHeaders(options(), { bearerAuth: true });
    expect(spy.mock.contexts.filter((c) => c === further)).toHaveLength(2);

    // A subclass's idempotency header: a fresh key per request, never a remembered one.
    const idempotent = new FetchSignalOpenAI(baseOptions({}));
    (idempotent as unknown as { idempotencyHeader: string }).idempotencyHeader = 'Idempotency-Key';
    const keys: (string | null)[] = [];
    for (let i = 0; i < 2; i++) keys.push(((await idempotent.buildRequest(options())).req.headers as Headers).get('idempotency-key'));
    expect(keys[0]).toMatch(/^stainless-node-retry-/u);
    expect(keys[1]).not.toBe(keys[0]);

    const build = vi.spyOn(sdkMethods, 'buildHeaders');
    const getterDefaults = new FetchSignalOpenAI(baseOptions({}));
    let n = 0;
    internals(getterDefaults)._options.defaultHeaders = Object.defineProperty({}, 'x-counter', { enumerable: true, get: () => String(++n) });
    const first = await internals(getterDefaults).buildHeaders(await buildInput(getterDefaults));
    const second = await internals(getterDefaults).buildHeaders(await buildInput(getterDefaults));
    expect([first.get('x-counter'), second.get('x-counter')]).toEqual(['1', '2']);
    expect(build.mock.contexts.filter((c) => c === getterDefaults)).toHaveLength(2);
  });
});
