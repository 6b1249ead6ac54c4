import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHttpFetch } from './node-http-fetch.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

describe('createNodeHttpFetch', () => {
  it('sends method, headers and a string body, and returns status, headers and body', async () => {
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(req.headers['x-test']) });
        res.end(JSON.stringify({ method: req.method, body }));
      });
    });
    const res = await createNodeHttpFetch()(`${url}/x`, { method: 'POST', headers: { 'x-test': 'yes' }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('streams the body as it arrives', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: 2\n\n'), 20);
    });
    const res = await createNodeHttpFetch()(url);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n');
  });

  it('aborts the upstream request when the signal fires', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req, res) => {
      res.writeHead(200);
      res.write('start');
      req.socket.on('close', () => closed());
    });
    const controller = new AbortController();
    const res = await createNodeHttpFetch()(url, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort(new Error('client left'));
    await upstreamClosed;
    await expect(reader.read()).rejects.toThrow();
  });

  it('rejects with the abort reason when aborted before the response', async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    const pending = createNodeHttpFetch()(url, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('too slow')), 10);
    await expect(pending).rejects.toThrow('too slow');
  });
});
