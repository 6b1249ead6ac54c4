import { attachBodyReader, takeBodyReader } from './body-reader.ts';
import type { BodyReader, ClaimableBody, ClaimOptions } from './body-reader.ts';
import { markFetchSignal, readsFetchSignal } from './fetch-signal.ts';
import { UpstreamMessageLimit } from './upstream-message-limit.ts';

/** Options of `limitUpstreamMessages`. */
export interface LimitUpstreamMessagesOptions {
  /** The largest message, in bytes (see `UpstreamMessageLimit`); greater than 0. */
  maxBytes: number;
  /** The option that raises the limit, as the error names it (`the maxMessageBytes option of createOpenAI`). */
  setting: string;
}

/**
 * A `fetch` whose response bodies fail with an `UpstreamMessageTooLargeError` once one message
 * (an SSE event, an NDJSON line, a whole body of anything else: see `UpstreamMessageLimit`) is
 * larger than `maxBytes`; the connection is then closed and nothing more is read. It bounds
 * every read of the body: an SDK's own (its stream's line splitter, `response.json()`, the
 * text of an error), and a provider's through `takeBodyReader`, which gets the bytes without
 * a second web stream in between. `fetch` (default: the global `fetch`, looked up per call) is
 * called as it is, and a `fetch` marked as reading `init[FETCH_SIGNAL]` stays marked.
 *
 * @example
 * const fetch = limitUpstreamMessages(options.fetch, { maxBytes: 16 << 20, setting: 'the maxMessageBytes option of createOpenAI' });
 */
export function limitUpstreamMessages(fetch: typeof globalThis.fetch | undefined, options: LimitUpstreamMessagesOptions): typeof globalThis.fetch {
  const limited = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await (fetch ?? globalThis.fetch)(input, init);
    return limitResponse(response, options);
  };
  return readsFetchSignal(fetch) ? markFetchSignal(limited) : limited;
}

/** The origin a response came from, for the error (no path, query or credentials). */
function originOf(response: Response): string | undefined {
  try {
    return response.url === '' ? undefined : new URL(response.url).origin;
  } catch {
    return undefined;
  }
}

/** `response` with its body counted; as it is when it has no body, or a status a `Response` cannot be built with. */
function limitResponse(response: Response, options: LimitUpstreamMessagesOptions): Response {
  const { status } = response;
  if (response.body === null || status < 200 || status > 599 || status === 204 || status === 205 || status === 304) return response;
  const origin = originOf(response);
  const limit = new UpstreamMessageLimit({ maxBytes: options.maxBytes, contentType: response.headers.get('content-type'), setting: options.setting, ...(origin === undefined ? {} : { origin }) });
  const body = new LimitedBody(response, limit);
  const limited = new LimitedResponse(body.web, { status, statusText: response.statusText, headers: response.headers }, limit);
  // What a built `Response` cannot be given: read by SDKs for their logs and errors.
  Object.defineProperty(limited, 'url', { value: response.url });
  Object.defineProperty(limited, 'redirected', { value: response.redirected });
  return attachBodyReader(limited, body);
}

/**
 * A `Response` whose reads of the whole body (`text()`, `json()`, …) count it as one message:
 * their caller holds all of it whatever its media type frames it as (an SDK reads an error's
 * body with `text()`, an answer framed as events included).
 */
class LimitedResponse extends Response {
  readonly #limit: UpstreamMessageLimit;

  constructor(body: ReadableStream<Uint8Array>, init: ResponseInit, limit: UpstreamMessageLimit) {
    super(body, init);
    this.#limit = limit;
  }

  override text(): Promise<string> {
    this.#limit.countWhole();
    return super.text();
  }

  override json(): Promise<unknown> {
    this.#limit.countWhole();
    return super.json();
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    this.#limit.countWhole();
    return super.arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    this.#limit.countWhole();
    return super.bytes();
  }

  override blob(): Promise<Blob> {
    this.#limit.countWhole();
    return super.blob();
  }

  override formData(): Promise<FormData> {
    this.#limit.countWhole();
    return super.formData();
  }
}

/** A `BodyReader` over a web body. */
function webBodyReader(body: ReadableStream<Uint8Array>): BodyReader {
  const reader = body.getReader();
  return {
    read: () => reader.read().then((read) => (read.done ? undefined : [read.value])),
    cancel: () => {
      reader.cancel().catch(() => undefined);
    },
  };
}

/**
 * The counted body of one response, read once: as a `BodyReader` (`claim`) or as the web
 * stream `web`, whichever asks first. Each reads the original body (its own `BodyReader`, or
 * its web stream) only when asked, so an upstream nobody reads stays paused.
 */
class LimitedBody implements ClaimableBody, BodyReader {
  readonly #response: Response;
  readonly #limit: UpstreamMessageLimit;
  #mode: 'unclaimed' | 'reader' | 'web' = 'unclaimed';
  #source: BodyReader | undefined;
  /** The limit's error, once a message was past it: every later read fails with it too. */
  #failure: Error | undefined;
  readonly web: ReadableStream<Uint8Array>;

  constructor(response: Response, limit: UpstreamMessageLimit) {
    this.#response = response;
    this.#limit = limit;
    this.web = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          if (this.#mode === 'reader') {
            controller.error(new TypeError('The response body was already taken by a body reader.'));
            return undefined;
          }
          this.#mode = 'web';
          return this.read().then(
            (parts) => {
              if (parts === undefined) controller.close();
              else for (const part of parts) controller.enqueue(part);
            },
            (error: unknown) => controller.error(error),
          );
        },
        cancel: () => this.cancel(),
      },
      // Pulled only when read: the upstream is read no faster than its reader reads.
      { highWaterMark: 0 },
    );
  }

  claim(options?: ClaimOptions): BodyReader | undefined {
    if (this.#mode !== 'unclaimed') return undefined;
    this.#mode = 'reader';
    if (options?.whole === true) this.#limit.countWhole();
    return this;
  }

  read(): Promise<readonly Uint8Array[] | undefined> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const source = (this.#source ??= takeBodyReader(this.#response) ?? webBodyReader(this.#response.body as ReadableStream<Uint8Array>));
    return source.read().then((parts) => {
      if (parts === undefined) return undefined;
      for (const part of parts) {
        const tooLarge = this.#limit.add(part);
        if (tooLarge !== undefined) {
          // The connection goes: nothing more of this message is read.
          this.#failure = tooLarge;
          source.cancel();
          throw tooLarge;
        }
      }
      return parts;
    });
  }

  cancel(): void {
    if (this.#source !== undefined) this.#source.cancel();
    else void this.#response.body?.cancel().catch(() => undefined);
  }
}
