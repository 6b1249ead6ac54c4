import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the local server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  search: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What a route answers: JSON, raw bytes, or an SSE stream of `data:` payloads. */
export type Reply =
  | { status?: number; json: unknown }
  | { status?: number; bytes: Uint8Array; contentType: string }
  | { status?: number; sse: string };

export type Route = (request: RecordedRequest) => Reply | undefined;

/** A 127.0.0.1 server that speaks OpenAI's wire format from a route function. */
export interface LocalOpenAIServer {
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLocalOpenAIServer(route: Route): Promise<LocalOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname.replace(/^\/v1/, ''),
        search: url.search,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      const reply = route(recorded);
      if (reply === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route for ${recorded.method} ${recorded.path}`, type: 'invalid_request_error' } }));
        return;
      }
      if ('json' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json));
      } else if ('bytes' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType });
        res.end(Buffer.from(reply.bytes));
      } else {
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream' });
        res.end(reply.sse);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The JSON body of a request. */
export function jsonBody(request: RecordedRequest): any {
  return JSON.parse(request.body.toString('utf8'));
}

/** OpenAI's error body. */
export function openAIError(status: number, message: string): Reply {
  return { status, json: { error: { message, type: 'invalid_request_error', param: null, code: null } } };
}
