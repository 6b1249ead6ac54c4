import { takeBodyReader } from './body-reader.ts';
import type { BodyReader } from './body-reader.ts';

/** Options of `readJsonBodyText`. */
export interface ReadJsonBodyOptions {
  /**
   * How long the body may stall once what arrived is a whole JSON value before that is taken
   * as the body and the connection closed (0: wait for the end, however long).
   */
  endGraceMs: number;
}

/** The response's `BodyReader` when its `fetch` attached one, else one over its web body. */
function readerOf(response: Response): BodyReader | undefined {
  const attached = takeBodyReader(response);
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

function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The text of a non-streamed JSON response body (UTF-8, a leading byte-order mark dropped,
 * as `Response.text()` gives it), read to its end; but when the body stalls for
 * `endGraceMs` and what arrived is already a whole JSON value, that is the answer: the
 * server sent it in full and left the connection open without ending the body, and the
 * connection is closed here instead of the request failing at the fetch's idle timeout.
 * Only a stall costs a parse attempt; a body that ends is read as it is.
 */
export async function readJsonBodyText(response: Response, options: ReadJsonBodyOptions): Promise<string> {
  const reader = readerOf(response);
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const read = reader.read();
    let parts = options.endGraceMs > 0 ? await within(read, options.endGraceMs) : await read;
    if (parts === STALLED) {
      // A whole JSON value ends in ASCII: no bytes of it wait in the decoder.
      if (text !== '' && isWholeJson(text)) {
        reader.cancel();
        return text;
      }
      parts = await read;
    }
    if (parts === undefined) return text + decoder.decode();
    for (const part of parts) text += decoder.decode(part, { stream: true });
  }
}
