import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const API_KEY = 'secret-key-123';

/** One request the API received. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A small pets API on 127.0.0.1 that speaks the fixtures' documents, with its failure modes. */
export interface PetsApi {
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

const PETS = [
  { id: 1, name: 'Rex', tag: 'dog' },
  { id: 2, name: 'Tom', tag: 'cat' },
];

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}

function countNodes(node: unknown): number {
  if (typeof node !== 'object' || node === null) return 0;
  const children = (node as { children?: unknown[] }).children ?? [];
  return 1 + children.reduce<number>((sum, child) => sum + countNodes(child), 0);
}

export async function startPetsApi(): Promise<PetsApi> {
  const seen: SeenRequest[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/trees/count' && req.method === 'POST') {
        json(res, 200, { count: countNodes(JSON.parse(body)) });
        return;
      }
      if (req.headers['x-api-key'] !== API_KEY) {
        json(res, 401, { code: 401, message: 'missing or wrong x-api-key' });
        return;
      }
      const parts = url.pathname.split('/').filter((part) => part !== '');
      if (parts[0] !== 'v1') {
        json(res, 404, { message: 'not found' });
        return;
      }
      if (parts[1] === 'pets' && parts.length === 2 && req.method === 'GET') {
        const tags = url.searchParams.getAll('tags');
        const limit = Number(url.searchParams.get('limit') ?? '100');
        const pets = PETS.filter((pet) => tags.length === 0 || tags.includes(pet.tag)).slice(0, limit);
        // Paced like a real server: the head, then the body in two pieces.
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        const text = JSON.stringify(pets);
        res.write(text.slice(0, 5));
        setTimeout(() => res.end(text.slice(5)), 20);
        return;
      }
      if (parts[1] === 'pets' && parts.length === 2 && req.method === 'POST') {
        const pet = JSON.parse(body) as { name: string };
        if (pet.name === 'invalid') json(res, 422, { code: 422, message: 'name "invalid" is reserved; choose another name' });
        else json(res, 201, { id: 3, ...pet });
        return;
      }
      if (parts[1] === 'pets' && parts.length === 3) {
        const id = decodeURIComponent(parts[2] ?? '');
        if (req.method === 'DELETE') res.writeHead(204).end();
        else if (id === '1') json(res, 200, PETS[0]);
        else json(res, 404, { code: 404, message: `no pet with id ${id}` });
        return;
      }
      if (parts[1] === 'status') {
        switch (url.searchParams.get('fail')) {
          case '500':
            res.writeHead(500, { 'content-type': 'text/plain' }).end('database unavailable');
            return;
          case '429':
            json(res, 429, { message: 'slow down' }, { 'retry-after': '7' });
            return;
          case 'slow':
            hanging.push(res);
            return;
          case 'big':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ items: 'x'.repeat(2 * 1024 * 1024) }));
            return;
          case 'echo':
            json(res, 200, { yourHeaders: req.headers });
            return;
          default:
            json(res, 200, { ok: true });
            return;
        }
      }
      json(res, 404, { message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
