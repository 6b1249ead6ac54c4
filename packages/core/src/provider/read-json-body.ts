import { takeBodyReader } from './body-reader.ts';
import type { BodyReader } from './body-reader.ts';

/** Options of `readJsonBodyText`. */
export interface ReadJsonBodyOptions {
  /**
   * How long the body may stall once what arrived is a complete answer (see `isComplete`)
   * before that is taken as the body and the connection closed (0: wait for the end, however
   * long).
   */
  endGraceMs: number;
  /**
   * Whether a parsed JSON value is a whole answer of the API (Ollama: an object with
   * `done: true`; Chat Completions: an object with `choices`, or an `error` object). Only such a
   * value is taken from a stalled body: a value that merely parses (the first line of an NDJSON
   * stream sent for a non-streamed request, a fragment) keeps the read waiting for the end or
   * the fetch's idle timeout. Without it, a stalled body is never taken early.
   */
  isComplete?: (value: unknown) => boolean;
}

/** The response's `BodyReader` when its `fetch` attached one, else one over its web body. */
function readerOf(response: Response): BodyReader | undefined {
  // The text is held whole, whatever the body's media type says (an NDJSON stream sent for a
  // request that asked for one answer): a limit on messages counts all of it.
  const attached = takeBodyReader(response, { whole: true });
  if (attached !== undefined) return attached;
  const body = response.body;
  if (body === null) return undefined;
  const reader = body.getReader();
  return {
    read: () => reader.read().then((read) => (read.done ? undefined : [read.value])),
    cancel: () => {
      reader.cancel().catch(() => undefined);
    },
  };
}

const STALLED = Symbol('stalled');

/** `read`, or `STALLED` when it has not settled within `ms` (the read stays under way). */
function within<T>(read: Promise<T>, ms: number): Promise<T | typeof STALLED> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(STALLED), ms);
    read.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Whether `text` parses as one JSON value that `isComplete` accepts. */
function isCompleteJson(text: string, isComplete: (value: unknown) => boolean): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  try {
    return isComplete(value);
  } catch {
    return false;
  }
}

/**
 * The text of a non-streamed JSON response body (UTF-8, a leading byte-order mark dropped,
 * as `Response.text()` gives it), read to its end; but when the body stalls for
 * `endGraceMs` and what arrived is already a whole JSON value that `isComplete` accepts as a
 * complete answer of the API, that is the answer: the server sent it in full and left the
 * connection open without ending the body, and the connection is closed here instead of the
 * request failing at the fetch's idle timeout. Anything else that stalls (half a value, a
 * value that is not a whole answer) keeps the read waiting, as a body that never ends would.
 * Only a stall costs a parse attempt; a body that ends is read as it is.
 */
export async function readJsonBodyText(response: Response, options: ReadJsonBodyOptions): Promise<string> {
  const reader = readerOf(response);
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  const isComplete = options.isComplete;
  const graceMs = isComplete === undefined ? 0 : options.endGraceMs;
  let text = '';
  for (;;) {
    const read = reader.read();
    let parts = graceMs > 0 ? await within(read, graceMs) : await read;
    if (parts === STALLED) {
      // A whole JSON value ends in ASCII: no bytes of it wait in the decoder.
      if (text !== '' && isComplete !== undefined && isCompleteJson(text, isComplete)) {
        reader.cancel();
        return text;
      }
      parts = await read;
    }
    if (parts === undefined) return text + decoder.decode();
    for (const part of parts) text += decoder.decode(part, { stream: true });
  }
}
