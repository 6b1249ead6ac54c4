// A local stand-in for the OpenAI API: a real node:http server on 127.0.0.1 that answers
// each request with the next scripted reply (JSON, SSE, an error, or a hanging stream).
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** One SSE frame: a JSON payload, optionally with an `event:` name. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/** What the server answers with. */
export type Reply =
  | { kind: 'json'; body: unknown; status?: number; headers?: Record<string, string> }
  | { kind: 'error'; status: number; message: string; type?: string; code?: string | null; headers?: Record<string, string> }
  /** A body as it is (a proxy's HTML error page). */
  | { kind: 'text'; status: number; body: string; headers?: Record<string, string> }
  | {
      kind: 'sse';
      frames: (SseFrame | string)[];
      /** Send `data: [DONE]` at the end (default true). */
      done?: boolean;
      /** Keep the connection open after the frames until the client goes away. */
      hang?: boolean;
      /** Write the body in these byte-offset pieces instead of frame by frame. */
      splitAt?: number[];
    };

/** A running test server. */
export interface OpenAITestServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  requests: RecordedRequest[];
  /** Queues replies; each request takes the next one. */
  reply(...replies: Reply[]): void;
  /** Resolves once a client closes a hanging stream. */
  closedByClient(): Promise<void>;
  close(): Promise<void>;
}

/** Formats SSE frames: `data: <json>\n\n`, with `event: <name>` when given. */
export function sseBody(frames: (SseFrame | string)[], done = true): string {
  let body = '';
  for (const frame of frames) {
    if (typeof frame === 'string') {
      body += frame;
      continue;
    }
    if (frame.event !== undefined) body += `event: ${frame.event}\n`;
    body += `data: ${JSON.stringify(frame.data)}\n\n`;
  }
  if (done) body += 'data: [DONE]\n\n';
  return body;
}

/** Frames for Responses events: the event name is the payload's `type`, as OpenAI sends it. */
export function responsesFrames(events: { type: string }[]): SseFrame[] {
  return events.map((data) => ({ event: data.type, data }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function send(res: ServerResponse, reply: Reply, onClientClose: () => void): Promise<void> {
  switch (reply.kind) {
    case 'json':
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    case 'error':
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify({ error: { message: reply.message, type: reply.type ?? 'invalid_request_error', param: null, code: reply.code ?? null } }));
      return;
    case 'text':
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body);
      return;
    case 'sse': {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.on('close', onClientClose);
      if (reply.splitAt) {
        const bytes = Buffer.from(sseBody(reply.frames, reply.done ?? true));
        let from = 0;
        for (const at of [...reply.splitAt, bytes.length]) {
          res.write(bytes.subarray(from, at));
          from = at;
          await tick();
        }
        res.end();
        return;
      }
      for (const frame of reply.frames) {
        res.write(sseBody([frame], false));
        await tick();
      }
      if (reply.hang === true) return;
      if (reply.done ?? true) res.write('data: [DONE]\n\n');
      res.end();
      return;
    }
  }
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startOpenAITestServer(): Promise<OpenAITestServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  let clientClosed: () => void = () => undefined;
  let closedPromise = new Promise<void>((resolve) => (clientClosed = resolve));
  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text) });
      const reply = queue.shift() ?? { kind: 'error', status: 500, message: 'The test server has no scripted reply left.', type: 'server_error' };
      await send(res, reply, () => clientClosed());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => queue.push(...replies),
    closedByClient: () => closedPromise.finally(() => (closedPromise = new Promise<void>((resolve) => (clientClosed = resolve)))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One test server for the calling test file: started before its tests, closed after them,
 * its recorded requests cleared before each test. Returns a getter for the server.
 */
export function useOpenAITestServer(): () => OpenAITestServer {
  let server: OpenAITestServer | undefined;
  beforeAll(async () => {
    server = await startOpenAITestServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return () => {
    if (server === undefined) throw new Error('the OpenAI test server is used before beforeAll started it');
    return server;
  };
}
