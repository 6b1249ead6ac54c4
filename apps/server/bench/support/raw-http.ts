// The peer bench's harness, kept cheap so that the targets, not the harness, set the pace:
// an HTTP/1.1 client over keep-alive sockets that sends request bytes built once, and a
// response reader for what an upstream or a target answers (Content-Length or chunked
// bodies). It reads only what the bench's targets send; it is not a general HTTP client.
import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** One complete response read off a socket. */
export interface RawResponse {
  status: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/**
 * The first complete response in `buf` and the bytes it took, or `undefined` while it is
 * incomplete. Throws on framing it does not know (neither Content-Length nor chunked).
 */
export function readResponse(buf: Buffer): { response: RawResponse; length: number } | undefined {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  let contentLength: number | undefined;
  let chunked = false;
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') contentLength = Number(value);
    else if (name === 'transfer-encoding') chunked = value.toLowerCase().includes('chunked');
  }
  const bodyStart = headEnd + HEAD_END.length;
  if (!chunked) {
    if (contentLength === undefined) throw new Error(`a response without Content-Length or chunked framing: ${head}`);
    if (buf.length < bodyStart + contentLength) return undefined;
    return { response: { status, body: buf.subarray(bodyStart, bodyStart + contentLength) }, length: bodyStart + contentLength };
  }
  const parts: Buffer[] = [];
  let at = bodyStart;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (!Number.isFinite(size)) throw new Error('a malformed chunk size');
    at = lineEnd + CRLF.length;
    if (size === 0) {
      // No trailers from these servers: the last chunk is followed by one empty line.
      if (buf.length < at + CRLF.length) return undefined;
      return { response: { status, body: Buffer.concat(parts) }, length: at + CRLF.length };
    }
    if (buf.length < at + size + CRLF.length) return undefined;
    parts.push(buf.subarray(at, at + size));
    at += size + CRLF.length;
  }
}

/** The bytes of one POST request with a JSON body. */
export function buildRequest(url: string, body: string, headers: Record<string, string> = {}): Buffer {
  const { host, pathname, search } = new URL(url);
  const payload = Buffer.from(body);
  const lines = [`POST ${pathname}${search} HTTP/1.1`, `host: ${host}`, 'content-type: application/json', `content-length: ${payload.length}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

/**
 * One keep-alive connection that carries one request at a time (a send while another is
 * under way waits for it): `send(bytes)` resolves with
 * the response (rejects on a status other than 200, with its body). A closed connection is
 * opened again on the next send.
 */
export class RawConnection {
  readonly #port: number;
  readonly #host: string;
  #socket: Socket | undefined;
  #buf: Buffer = Buffer.alloc(0);
  #last: Promise<unknown> = Promise.resolve();
  #pending: { resolve: (response: RawResponse) => void; reject: (error: Error) => void } | undefined;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.#host = hostname;
    this.#port = Number(port);
  }

  #open(): Socket {
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true });
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    const fail = (error: Error): void => {
      if (this.#socket === socket) this.#socket = undefined;
      this.#buf = Buffer.alloc(0);
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the connection closed before the response ended')));
    this.#socket = socket;
    return socket;
  }

  #onData(chunk: Buffer): void {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    let read;
    try {
      read = readResponse(this.#buf);
    } catch (error) {
      this.#socket?.destroy(error as Error);
      return;
    }
    if (read === undefined) return;
    this.#buf = this.#buf.subarray(read.length);
    const pending = this.#pending;
    this.#pending = undefined;
    if (read.response.status === 200) pending?.resolve(read.response);
    else pending?.reject(new Error(`${read.response.status}: ${read.response.body.toString('utf8').slice(0, 300)}`));
  }

  send(bytes: Buffer): Promise<RawResponse> {
    // A send while one is under way waits for it (no pipelining).
    if (this.#pending !== undefined) {
      const after = this.#last.then(
        () => this.send(bytes),
        () => this.send(bytes),
      );
      this.#last = after;
      return after;
    }
    const socket = this.#socket ?? this.#open();
    const response = new Promise<RawResponse>((resolve, reject) => {
      this.#pending = { resolve, reject };
      socket.write(bytes);
    });
    this.#last = response;
    return response;
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }
}
