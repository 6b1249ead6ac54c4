// A stand-in upstream for fuzzing: a real node:http server on 127.0.0.1 that answers each
// request with the reply a test hands it (see hostile-traffic.ts), writing the body a piece
// per turn of the event loop, then ending, resetting, or holding the connection open. It
// keeps track of the answers still open, so a test can check that the client closed every
// connection it stopped reading.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KEY_PLACEHOLDER } from './hostile-traffic.ts';
import type { UpstreamReply } from './hostile-traffic.ts';

/** One request the upstream received. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface HostileUpstream {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: SeenRequest[];
  /** Answers each request with `route(request)`; set per fuzz case. */
  route: (request: SeenRequest) => UpstreamReply;
  /** Called when a reply that holds its connection open has written all its bytes. */
  onHeld: () => void;
  /** Answers whose connection is neither ended by the upstream nor closed by the client. */
  openAnswers(): number;
  /** Resolves once every reply has been written out (a held one stays open after that). */
  allWritten(): Promise<void>;
  /** Closes every connection (between cases, after a case's checks). */
  reset(): void;
  close(): Promise<void>;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const PLACEHOLDER = Buffer.from(KEY_PLACEHOLDER);

function echoCredential(chunk: Uint8Array, credential: Buffer): Uint8Array {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (credential.length === 0 || !bytes.includes(PLACEHOLDER)) return chunk;
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(PLACEHOLDER); at !== -1; at = bytes.indexOf(PLACEHOLDER, from)) {
    parts.push(bytes.subarray(from, at), credential);
    from = at + PLACEHOLDER.length;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const open = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let writing = 0;
  let idle: (() => void)[] = [];
  const doneWriting = (): void => {
    writing--;
    if (writing === 0) {
      for (const resolve of idle) resolve();
      idle = [];
    }
  };

  const upstream: HostileUpstream = {
    origin: '',
    requests: [],
    route: () => ({ status: 500, headers: {}, informational: [], chunks: [], ending: 'end' }),
    onHeld: () => undefined,
    openAnswers: () => open.size,
    allWritten: () => (writing === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    reset() {
      for (const socket of sockets) socket.destroy();
      open.clear();
      upstream.requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const seen: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
    upstream.requests.push(seen);
    const reply = upstream.route(seen);
    open.add(res);
    res.once('close', () => open.delete(res));
    res.once('finish', () => open.delete(res));
    for (const code of reply.informational) {
      if (code === 100) res.writeContinue();
      else if (code === 102) res.writeProcessing();
      else res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    }
    res.writeHead(reply.status, reply.headers);
    res.flushHeaders();
    // The credential the request carried, for replies that echo it (`KEY_PLACEHOLDER`).
    const authorization = req.headers.authorization ?? '';
    const credential = Buffer.from(authorization.replace(/^Bearer /iu, ''));
    for (const piece of reply.chunks) {
      if (res.destroyed) return;
      const chunk = echoCredential(piece, credential);
      if (chunk.length > 0 && !res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      await turn();
    }
    if (res.destroyed) return;
    if (reply.ending === 'end') res.end();
    else if (reply.ending === 'reset') res.socket?.resetAndDestroy();
    // 'hold': left open until the client goes away.
    else upstream.onHeld();
  }

  const server = createServer((req, res) => {
    writing++;
    answer(req, res)
      .catch(() => res.destroy())
      .finally(doneWriting);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // A client that sends garbage or goes away mid-request is not the upstream's problem.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}
