import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Duplex } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** The decoder of each content coding the gateway reads (RFC 9110 §8.4.1; `x-gzip` is gzip). */
const DECODERS: Record<string, () => Duplex> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The `Content-Encoding` of a response, read from its raw header lines (`res.headers` would build a whole object). */
function contentEncoding(raw: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 16 && name.toLowerCase() === 'content-encoding') return (raw[i + 1] as string).trim().toLowerCase();
  }
  return undefined;
}

/** Header lines that describe the encoded body, not the decoded one. */
function isEncodedBodyHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'content-encoding' || lower === 'content-length';
}

/**
 * `res` as the gateway reads it: as it is, unless the upstream compressed its body although
 * the gateway asks for no compression (it sends no `Accept-Encoding`; a proxy in front of the
 * upstream that compresses anyway). Then a stand-in for `res` whose body is the decoded one
 * (gzip, deflate, br), with the status and header lines of `res` less `Content-Encoding` and
 * `Content-Length`, so that the SDKs parse JSON and events, not compressed bytes, and the
 * message limit counts what a reader holds (a small compressed body can hold a huge one).
 * Decoding keeps the reader's pace: the upstream is read no faster than the decoded body.
 * Destroying the stand-in (a cancel, the message limit) cuts the upstream; a failure of the
 * upstream fails the stand-in. A coding it cannot decode, or a body that is not what its
 * header says, fails the body with an error naming the coding.
 */
export function decodeUpstreamBody(res: IncomingMessage): IncomingMessage {
  const coding = contentEncoding(res.rawHeaders);
  if (coding === undefined || coding === 'identity' || coding === '') return res;
  const make = DECODERS[coding];
  const decoded = make === undefined ? new PassThrough() : make();
  const rawHeaders: string[] = [];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    if (!isEncodedBodyHeader(res.rawHeaders[i] as string)) rawHeaders.push(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  }
  const standIn = Object.assign(decoded, { statusCode: res.statusCode, statusMessage: res.statusMessage, rawHeaders });
  Object.defineProperty(standIn, 'complete', { get: () => decoded.readableEnded });
  const header = `Content-Encoding: ${coding}`;
  if (make === undefined) {
    res.destroy();
    decoded.destroy(new Error(`The upstream answered with ${header}, which the gateway cannot decode (it asks for no compression). A proxy in front of the upstream may be compressing answers: turn that off for this route.`));
    return standIn as unknown as IncomingMessage;
  }
  /** Set when the upstream's own failure is passed on: only the decoder's errors are about the coding. */
  let passedOn = false;
  const fail = (error: Error): void => {
    passedOn = true;
    decoded.destroy(error);
  };
  // Registered first, so that every later listener sees the message that says what happened.
  decoded.once('error', (error: Error) => {
    if (!passedOn) {
      error.message = `The upstream's body is not what its ${header} says (${error.message}); the gateway asks for no compression, so a proxy in front of the upstream may be changing answers.`;
    }
    res.destroy();
  });
  res.on('error', fail);
  res.on('close', () => {
    if (!res.complete) fail(new Error('The upstream response closed before it ended.'));
  });
  decoded.on('close', () => {
    // Cancelled or failed before the upstream ended: nothing more of it is read.
    if (!res.complete) res.destroy();
  });
  res.pipe(decoded);
  return standIn as unknown as IncomingMessage;
}
