import type { IncomingMessage } from 'node:http';
import { BODY_READER, UpstreamMessageLimit } from '@toolwire/core/provider';
import type { BodyReader, ClaimableBody, ClaimOptions } from '@toolwire/core/provider';

/**
 * A fetch response's headers read straight from Node's raw header array: what the
 * provider SDKs do with response headers (`get`, `has`, iteration) without building an
 * undici `Headers` (validation of every line) per response. Iteration sorts as a fetch
 * `Headers` does, on each call (the SDKs iterate rarely: for logs and errors). Like a fetch
 * response's, they are immutable.
 */
export class RawResponseHeaders implements Headers {
  // Only the raw array (Node's own, kept by the response anyway), no lookup table: a streamed
  // response's headers stay for the stream's whole length (the reader keeps them for the
  // errors it may raise), read a few times while the call starts, and a table per response
  // would be held all that time. A dozen lines are scanned as fast as a table is built.
  readonly #raw: readonly string[];

  /** @param raw Node's `rawHeaders`: `[name, value, name, value…]` as received. */
  constructor(raw: readonly string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    const raw = this.#raw;
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const key = raw[i] as string;
      // Servers mostly send lower-case names: compared as they are first, lower-cased only when that fails.
      if (key.length !== wanted.length || (key !== wanted && key.toLowerCase() !== wanted)) continue;
      const line = raw[i + 1] as string;
      value = value === null ? line : `${value}, ${line}`;
    }
    return value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  getSetCookie(): string[] {
    const cookies: string[] = [];
    const raw = this.#raw;
    for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === 'set-cookie') cookies.push(raw[i + 1] as string);
    return cookies;
  }

  /**
   * The `[name, value]` pairs iteration yields: sorted, joined, `set-cookie` kept apart. Made
   * anew on each call (the SDKs iterate a response's headers once): the caller may change
   * them without changing what the next iteration sees, and no second copy is needed.
   */
  #pairs(): [string, string][] {
    const raw = this.#raw;
    const lines: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) lines.push([(raw[i] as string).toLowerCase(), raw[i + 1] as string]);
    // By name (a stable sort: a repeated name's lines keep the order they came in), then, as a
    // fetch `Headers` iterates, a repeated name's values joined, except each `set-cookie` on its own.
    lines.sort(byName);
    const pairs: [string, string][] = [];
    let last: [string, string] | undefined;
    for (const line of lines) {
      if (last !== undefined && last[0] === line[0] && line[0] !== 'set-cookie') last[1] = `${last[1]}, ${line[1]}`;
      else pairs.push((last = line));
    }
    return pairs;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#pairs()) callback.call(thisArg, value, name, this);
  }

  // Array iterators over fresh pairs: no generator per call, and a caller cannot change what the next iteration sees.
  entries(): HeadersIterator<[string, string]> {
    return this.#pairs()[Symbol.iterator]();
  }

  keys(): HeadersIterator<string> {
    return this.#pairs().map(([name]) => name)[Symbol.iterator]();
  }

  values(): HeadersIterator<string> {
    return this.#pairs().map(([, value]) => value)[Symbol.iterator]();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  append(): void {
    throw new TypeError('Response headers are immutable.');
  }

  set(): void {
    throw new TypeError('Response headers are immutable.');
  }

  delete(): void {
    throw new TypeError('Response headers are immutable.');
  }
}

/** Header lines in name order (UTF-16 code units, as `Array.prototype.sort` orders names). */
function byName(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** What `NodeHttpResponse` needs besides the Node response. */
export interface NodeHttpResponseInit {
  /** The URL that was fetched. */
  url: string;
  /** Whether the response has no body whatever the upstream sent (204, 304, a HEAD request). */
  nullBody: boolean;
  /**
   * The body as a web stream or a `BodyReader`, whichever is claimed first (`createNodeBody`);
   * called at most once, when `body` is first read or the body reader claimed. It listens
   * for the response's 'error' for as long as the response lives (a claimed body's response
   * stops listening itself).
   */
  body: (res: IncomingMessage, limit: UpstreamMessageLimit | undefined) => { web: ReadableStream<Uint8Array>; claim: () => BodyReader | undefined };
  /** The largest message (stream event, stream line, whole body) the body may carry, in bytes; 0 or absent: no limit. */
  maxMessageBytes?: number;
}

const UNUSABLE = 'Body is unusable: the body has already been read.';

/**
 * A fetch `Response` over a Node `IncomingMessage`, for the upstream fetch. `text()`,
 * `json()`, `arrayBuffer()` and `bytes()` read the socket directly (the non-streamed path
 * of every SDK call); `body` is a web stream and `claim` (see core's `takeBodyReader`) a
 * `BodyReader` over the same body (`init.body`), created when first asked for, one of them
 * only; everything else goes through a real
 * `Response` over that stream. A body that fails or is cut (reset, abort, idle timeout, a
 * close before its end) rejects the read with the same error the stream would give.
 */
export class NodeHttpResponse implements Response, ClaimableBody {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected = false;
  readonly type: ResponseType = 'basic';
  readonly headers: RawResponseHeaders;
  /**
   * Let go once a direct read has the whole body, or at once when a reader claims the body
   * (the reader holds it then): the SDK keeps the response reachable
   * from closures of its own that V8 allocates in the old generation (a function written
   * straight into a property, `promise.withResponse = async () => …`), so whatever the
   * response still holds (the Node response, and through it the request and its header
   * text) would outlive every young-generation collection until the next full one.
   * `undefined` only once `#used`: every read of it before that may take it as set.
   */
  #res: IncomingMessage | undefined;
  readonly #toBody: NodeHttpResponseInit['body'];
  readonly #limit: UpstreamMessageLimit | undefined;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null | undefined;
  /** Set once a body method has taken the body. */
  #used = false;
  /** An error or early close that came before anything read the body. */
  #failure: Error | undefined;
  /** The pending direct read, told about the body's end or failure. */
  #reader: { chunks: Buffer[]; resolve: (bytes: Buffer) => void; reject: (error: Error) => void } | undefined;

  constructor(res: IncomingMessage, init: NodeHttpResponseInit) {
    this.#res = res;
    this.status = res.statusCode ?? 502;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status <= 299;
    this.url = init.url;
    this.headers = new RawResponseHeaders(res.rawHeaders);
    this.#toBody = init.body;
    const maxMessageBytes = init.maxMessageBytes ?? 0;
    this.#limit =
      maxMessageBytes > 0 && !init.nullBody ? new UpstreamMessageLimit({ maxBytes: maxMessageBytes, contentType: this.headers.get('content-type'), setting: 'limits.upstreamMessageLimitBytes' }) : undefined;
    if (init.nullBody) {
      this.#stream = null;
      res.resume();
    }
    // From the start: an 'error' without a listener would be thrown where nothing catches it,
    // and a failure before anyone reads must still reach the reader that comes later.
    res.on('error', this.#onError);
    res.once('close', this.#onClose);
  }

  readonly #onError = (error: Error): void => this.#fail(error);
  readonly #onClose = (): void => {
    const res = this.#res;
    if (res !== undefined && !res.complete) this.#fail(new Error('The upstream response closed before it ended.'));
  };

  #fail(error: Error): void {
    if (this.#reader !== undefined) {
      const { reject } = this.#reader;
      this.#reader = undefined;
      reject(error);
    } else if (this.#stream === undefined && !this.#used) {
      this.#failure ??= error;
    }
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#stream !== undefined) return this.#stream;
    if (this.#used || this.#failure !== undefined) {
      const reason = this.#failure ?? new TypeError(UNUSABLE);
      this.#stream = new ReadableStream({ start: (controller) => controller.error(reason) });
    } else {
      this.#stream = this.#toBody(this.#res as IncomingMessage, this.#limit).web as ReadableStream<Uint8Array<ArrayBuffer>>;
    }
    return this.#stream;
  }

  /**
   * The body as a `BodyReader` (what `takeBodyReader` asks for); `undefined` when the body was
   * read, handed out as `body`, or failed before anything read it (`body` then tells why).
   */
  claim(options?: ClaimOptions): BodyReader | undefined {
    if (this.#used || this.#stream !== undefined || this.#failure !== undefined) return undefined;
    this.#used = true;
    if (options?.whole === true) this.#limit?.countWhole();
    const res = this.#res as IncomingMessage;
    // The reader has the body now, and with it the Node response: `body` gives a stream that
    // refuses, as after a direct read, and this response lets go of both (see `#res`), so
    // that the SDK keeping it holds neither once the stream is over.
    this.#res = undefined;
    const reader = this.#toBody(res, this.#limit).claim();
    // The reader listens for the body's end and failures itself (its 'error' listener stays):
    // this response's own listeners would do nothing more for the rest of a long stream.
    res.off('error', this.#onError);
    res.off('close', this.#onClose);
    return reader;
  }

  /**
   * Where core's `takeBodyReader` finds the body's claim (what `attachBodyReader` would
   * define on each response, one property per response): this response itself, except
   * with no body at all (204, 304, HEAD), as the fetch attached none there.
   */
  get [BODY_READER](): ClaimableBody | undefined {
    return this.#stream === null ? undefined : this;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The whole body, read from the socket unless the stream was handed out already. */
  async #bytes(): Promise<Buffer> {
    if (this.#used) throw new TypeError(UNUSABLE);
    this.#used = true;
    // Held whole, whatever the media type frames it as (an error's body sent as events).
    this.#limit?.countWhole();
    if (this.#stream === null) return Buffer.alloc(0);
    if (this.#stream !== undefined) return Buffer.from(await new Response(this.#stream).arrayBuffer());
    if (this.#failure !== undefined) throw this.#failure;
    const res = this.#res as IncomingMessage;
    return new Promise<Buffer>((resolve, reject) => {
      const reader = { chunks: [] as Buffer[], resolve, reject };
      this.#reader = reader;
      const limit = this.#limit;
      res.on('data', (chunk: Buffer) => {
        // Failed through the response's 'error' (`#onError`), as a reset would be.
        const tooLarge = limit?.add(chunk);
        if (tooLarge !== undefined) res.destroy(tooLarge);
        else reader.chunks.push(chunk);
      });
      res.once('end', () => {
        if (this.#reader !== reader) return;
        this.#reader = undefined;
        this.#res = undefined;
        resolve(reader.chunks.length === 1 ? (reader.chunks[0] as Buffer) : Buffer.concat(reader.chunks));
      });
    });
  }

  async text(): Promise<string> {
    const bytes = await this.#bytes();
    // UTF-8 decoding as fetch does it: a leading byte-order mark is dropped.
    const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    return bytes.toString('utf8', bom ? 3 : 0);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    // A copy: Node may hand out a slice of a shared pool.
    return new Uint8Array(await this.#bytes());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async blob(): Promise<Blob> {
    // Through a real Response: it normalises the media type as fetch does.
    return new Response(await this.bytes(), { headers: [...this.headers] }).blob();
  }

  async formData(): Promise<FormData> {
    if (!this.#used && this.#stream === undefined) this.#limit?.countWhole();
    return this.#real().formData();
  }

  clone(): Response {
    if (this.#used) throw new TypeError(UNUSABLE);
    const body = this.body;
    if (body === null) return this.#real();
    // Both halves of one tee, as `Response.clone` does: this response keeps the first.
    const [mine, theirs] = body.tee();
    this.#stream = mine;
    return new Response(theirs, { status: this.status, statusText: this.statusText, headers: [...this.headers] });
  }

  /** A real `Response` over this body, for the members the fast paths do not cover. */
  #real(): Response {
    if (this.#used) throw new TypeError(UNUSABLE);
    const body = this.body;
    this.#used = body !== null;
    return new Response(body, { status: this.status, statusText: this.statusText, headers: [...this.headers] });
  }
}
