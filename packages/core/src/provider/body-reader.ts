/**
 * A response body read without a web `ReadableStream` in between: a custom `fetch` built
 * on another HTTP client (the gateway's `node:http` one) can attach one to the `Response`
 * it returns, and a provider that reads a streamed body itself takes it instead of
 * `response.body`. Nothing imports the other side: the contract is this symbol
 * (`Symbol.for`, so duplicate copies of this package agree) and this interface.
 *
 * Why: a web stream costs a promise, a result object and its queue's bookkeeping per read,
 * on every read of every stream; this hands over every chunk that arrived since the last read.
 */
export interface BodyReader {
  /**
   * Every chunk that arrived since the last read (waits for at least one); `undefined` once
   * the body ended. Rejects when the body failed (a reset, a cut, a timeout). One read at a time.
   */
  read(): Promise<readonly Uint8Array[] | undefined>;
  /** Stops reading and releases the connection; later reads resolve `undefined`. */
  cancel(): void;
}

/** Where a `Response` carries its `BodyReader`. */
export const BODY_READER: unique symbol = Symbol.for('toolwire.body-reader') as never;

/** How the reader that claims a body reads it. */
export interface ClaimOptions {
  /**
   * The reader holds the whole body before it can use it (a JSON answer, an error's text),
   * whatever its media type frames it as: a limit on messages then counts it as one.
   */
  whole?: boolean;
}

/** What `attachBodyReader` needs of the body: claimed once, by the reader or by `response.body`. */
export interface ClaimableBody {
  /** Hands the body to the reader; undefined when `response.body` was read first. */
  claim(options?: ClaimOptions): BodyReader | undefined;
}

/** Attaches a reader to a `Response` (done by a custom `fetch`), once: a second attach to the same response throws. */
export function attachBodyReader(response: Response, body: ClaimableBody): Response {
  Object.defineProperty(response, BODY_READER, { value: body, enumerable: false });
  return response;
}

/**
 * The `BodyReader` a custom `fetch` attached to `response`, claiming the body (its web
 * `body` then refuses to be read); `undefined` when there is none or the body was read already.
 */
export function takeBodyReader(response: Response, options?: ClaimOptions): BodyReader | undefined {
  const body = (response as unknown as Record<symbol, ClaimableBody | undefined>)[BODY_READER];
  return body?.claim(options);
}
