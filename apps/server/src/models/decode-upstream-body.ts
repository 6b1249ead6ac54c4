import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Duplex } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

/**
 * The decoder of each content coding the gateway reads (RFC 9110 §8.4.1; `x-gzip` is gzip), from
 * the body's first bytes: `deflate` is meant to be zlib-wrapped, but some servers send it raw,
 * which browsers and undici read too (a zlib header's first byte has compression method 8).
 */
const DECODERS: Record<string, (first: Uint8Array) => Duplex> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: (first) => ((first[0] ?? 0) & 0x0f) === 0x08 ? createInflate() : createInflateRaw(),
  br: () => createBrotliDecompress(),
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
  const rawHeaders: string[] = [];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    if (!isEncodedBodyHeader(res.rawHeaders[i] as string)) rawHeaders.push(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  }
  const decoded = new PassThrough();
  const standIn = Object.assign(decoded, { statusCode: res.statusCode, statusMessage: res.statusMessage, rawHeaders });
  Object.defineProperty(standIn, 'complete', { get: () => decoded.readableEnded });
  const header = `Content-Encoding: ${coding}`;
  if (make === undefined) {
    res.destroy();
    decoded.destroy(new Error(`The upstream answered with ${header}, which the gateway cannot decode (it asks for no compression). A proxy in front of the upstream may be compressing answers: turn that off for this route.`));
    return standIn as unknown as IncomingMessage;
  }
  let decoder: Duplex | undefined;
  const fail = (error: Error): void => {
    decoder?.destroy();
    decoded.destroy(error);
  };
  res.on('error', fail);
  res.on('close', () => {
    if (!res.complete) fail(new Error('The upstream response closed before it ended.'));
  });
  decoded.on('close', () => {
    // Cancelled or failed before the upstream ended: nothing more of it is read.
    decoder?.destroy();
    if (!res.complete) res.destroy();
  });
  // The decoder is made for the first bytes (it may depend on them); an empty body is an empty
  // body whatever its header says (a proxy that labels every answer, a 401 among them).
  res.once('data', (first: Buffer) => {
    res.pause();
    const active = make(first);
    decoder = active;
    active.once('error', (error: Error) => {
      error.message = `The upstream's body is not what its ${header} says (${error.message}); the gateway asks for no compression, so a proxy in front of the upstream may be changing answers.`;
      res.destroy();
      decoded.destroy(error);
    });
    active.write(first);
    // Both pipes keep the reader's pace: the upstream is read no faster than the decoded body.
    res.pipe(active).pipe(decoded);
  });
  res.once('end', () => {
    if (decoder === undefined) decoded.end();
  });
  return standIn as unknown as IncomingMessage;
}
