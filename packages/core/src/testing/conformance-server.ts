import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a wire format answers with: a status, headers, and the body text. */
export interface WireReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** How the conformance server writes a reply's body. */
export interface ReplyPacing {
  /** Write the body in pieces of this many characters (default: all at once). */
  chunkSize?: number;
  /** Write only this many characters, then hold the connection open until the client leaves. */
  stallAfter?: number;
}

/** One request as the server received it. */
export interface ConformanceRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (`undefined` when it was not JSON). */
  body: unknown;
}

/** A local HTTP server on 127.0.0.1 that answers every request through `handle`. */
export interface ConformanceServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: ConformanceRequest[];
  /** Sets what the next requests get. */
  handle(handler: (request: ConformanceRequest) => { reply: WireReply; pacing?: ReplyPacing }): void;
  /** Resolves when a client leaves a stalled reply. */
  clientLeft(): Promise<void>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Starts the server the conformance suite talks to; the provider's wire format decides every answer. */
export async function startConformanceServer(): Promise<ConformanceServer> {
  const requests: ConformanceRequest[] = [];
  const stalled = new Set<ServerResponse>();
  let handler: Parameters<ConformanceServer['handle']>[0] = () => ({ reply: { status: 500, body: '{"error":"no scenario set"}' } });
  let leftWaiters: (() => void)[] = [];

  async function answer(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const request: ConformanceRequest = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers: incoming.headers,
      body: await readBody(incoming),
    };
    requests.push(request);
    const { reply, pacing = {} } = handler(request);
    // A client that goes away before the reply ended (an abort) is what clientLeft() waits for.
    response.on('close', () => {
      stalled.delete(response);
      if (response.writableEnded) return;
      const waiters = leftWaiters;
      leftWaiters = [];
      for (const waiter of waiters) waiter();
    });
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    const body = pacing.stallAfter !== undefined ? reply.body.slice(0, pacing.stallAfter) : reply.body;
    const size = pacing.chunkSize ?? Math.max(1, body.length);
    for (let index = 0; index < body.length; index += size) {
      if (response.destroyed) return;
      response.write(body.slice(index, index + size));
      await tick();
    }
    if (pacing.stallAfter !== undefined) {
      // Held open until the client leaves (or the server closes).
      stalled.add(response);
      return;
    }
    response.end();
  }

  const server = createServer((incoming, response) => {
    answer(incoming, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    clientLeft() {
      return new Promise((resolve) => leftWaiters.push(resolve));
    },
    close() {
      for (const response of stalled) response.destroy();
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
