import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, createGuardedStreamFetch, FetchDeniedError } from '../src/index.ts';

describe('createGuardedStreamFetch against a 127.0.0.1 server', () => {
  let server: Server;
  let origin: string;
  // Another origin on the same host: what reached it.
  let other: Server;
  let otherPort = 0;
  const otherSeen: (string | undefined)[] = [];
  const open: ServerResponse[] = [];
  const seen: { method: string; url: string; body: string; auth: string | undefined; type: string | undefined }[] = [];
  // Whether the connection of the redirect whose body never ends was closed.
  let endlessRedirectClosed = false;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body, auth: req.headers.authorization, type: req.headers['content-type'] });
        if (req.url === '/events') {
          // Paced server-sent events on a stream that stays open.
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: one\n\n');
          open.push(res);
          // After the head deadline the test gives (1 s: generous for a head on a loaded machine).
          setTimeout(() => res.write('data: two\n\n'), 1200);
        } else if (req.url === '/flood') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('x'.repeat(3000));
          open.push(res);
        } else if (req.url === '/none') res.writeHead(204).end();
        else if (req.url === '/other-port') res.writeHead(307, { location: `http://127.0.0.1:${otherPort}/landed` }).end();
        else if (req.url === '/same-origin') res.writeHead(307, { location: '/echo' }).end();
        else if (req.url === '/found') res.writeHead(302, { location: '/echo' }).end();
        else if (req.url === '/see-other') res.writeHead(303, { location: '/echo' }).end();
        else if (req.url === '/redirect-endless') {
          // A redirect whose body never ends: read to its end, it would hold its connection for good.
          res.writeHead(302, { location: '/echo', 'content-type': 'text/plain' });
          const timer = setInterval(() => res.write('x'.repeat(1024)), 10);
          res.on('close', () => {
            clearInterval(timer);
            endlessRedirectClosed = true;
          });
        }
        else if (req.url === '/not-allowed') res.writeHead(405, { 'content-type': 'text/plain' }).end('Method Not Allowed');
        else if (req.url === '/redirect-meta') res.writeHead(307, { location: 'http://169.254.169.254/' }).end();
        else if (req.url === '/slow-head') open.push(res);
        else res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] }).end(JSON.stringify({ echo: body }));
      });
    });
    other = createServer((req, res) => {
      otherSeen.push(req.headers.authorization);
      res.writeHead(200).end('landed');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherPort = (other.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const res of open) res.destroy();
    other.close();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const guarded = (extra: { maxResponseBytes?: number; timeoutMs?: number } = {}) =>
    createGuardedStreamFetch({ allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true, ...extra });

  it('sends method, headers and a string body and returns a standard Response', async () => {
    const response = await guarded()(`${origin}/echo`, { method: 'POST', headers: { authorization: 'Bearer t', host: 'evil' }, body: '{"a":1}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ echo: '{"a":1}' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/echo', auth: 'Bearer t' });
  });

  it('streams a body as it arrives instead of waiting for its end', async () => {
    const controller = new AbortController();
    const response = await guarded({ timeoutMs: 1000 })(new URL(`${origin}/events`), { signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('two')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    // Past the head deadline, the open stream is still readable.
    expect(text).toBe('data: one\n\ndata: two\n\n');
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it('errors the body once it passes maxResponseBytes', async () => {
    const response = await guarded({ maxResponseBytes: 1000 })(`${origin}/flood`);
    await expect(response.text()).rejects.toSatisfy((error) => FetchDeniedError.isInstance(error));
  });

  it('lets a body be cancelled before it is read (the MCP SDK cancels a 405 with a body)', async () => {
    // Before: data already scheduled reached a cancelled stream's controller, and the
    // TypeError it threw ended the process.
    for (let i = 0; i < 20; i++) {
      const response = await guarded()(`${origin}/not-allowed`);
      expect(response.status).toBe(405);
      await response.body?.cancel();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it("hands a redirect to the caller with redirect: 'manual', and refuses it with 'error'", async () => {
    const manual = await guarded()(`${origin}/same-origin`, { redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe('/echo');
    await expect(guarded()(`${origin}/same-origin`, { redirect: 'error' })).rejects.toThrow(/redirect is 'error'/);
  });

  it('does not carry credentials across origins when it follows a redirect', async () => {
    const response = await guarded()(`${origin}/other-port`, { headers: { authorization: 'Bearer secret', cookie: 'a=1' } });
    expect(await response.text()).toBe('landed');
    expect(otherSeen).toEqual([undefined]);
    const same = await guarded()(`${origin}/same-origin`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: 'kept' });
    expect(await same.json()).toEqual({ echo: 'kept' });
    expect(seen.at(-1)).toMatchObject({ url: '/echo', auth: 'Bearer t' });
  });

  it('closes the connection of a redirect it follows instead of reading its body to the end', async () => {
    const response = await guarded()(`${origin}/redirect-endless`);
    expect(await response.json()).toEqual({ echo: '' });
    await expect.poll(() => endlessRedirectClosed, { timeout: 5000 }).toBe(true);
  });

  it('changes the method on a redirect as fetch does: 303 to GET (HEAD stays), 301 and 302 only a POST', async () => {
    const send = async (path: string, method: string): Promise<(typeof seen)[number] | undefined> => {
      const response = await guarded()(`${origin}${path}`, { method, ...(method === 'HEAD' ? {} : { body: 'payload', headers: { 'content-type': 'text/plain' } }) });
      await response.body?.cancel();
      return seen.at(-1);
    };
    expect(await send('/found', 'PUT')).toMatchObject({ method: 'PUT', url: '/echo', body: 'payload', type: 'text/plain' });
    // A body dropped takes its headers along.
    expect(await send('/found', 'POST')).toMatchObject({ method: 'GET', url: '/echo', body: '', type: undefined });
    expect(await send('/see-other', 'DELETE')).toMatchObject({ method: 'GET', url: '/echo', body: '', type: undefined });
    expect(await send('/see-other', 'HEAD')).toMatchObject({ method: 'HEAD', url: '/echo' });
  });

  it('frames the body of every method (a DELETE body was sent unframed: lost, or read as a request of its own)', async () => {
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: internal\r\n\r\n';
    for (const method of ['DELETE', 'OPTIONS']) {
      const response = await guarded()(`${origin}/echo`, { method, body: smuggled });
      expect(await response.json()).toEqual({ echo: smuggled });
    }
    expect(seen.filter((request) => request.url === '/smuggled')).toEqual([]);
  });

  it('answers a 204 with a null body', async () => {
    const response = await guarded()(`${origin}/none`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('refuses hosts off the allow-list, private addresses and redirects to them', async () => {
    const strict = createGuardedStreamFetch({ allowedDomains: ['127.0.0.1'] });
    await expect(strict(`${origin}/echo`)).rejects.toThrow(/private, loopback/);
    await expect(createGuardedStreamFetch({ allowedDomains: ['example.com'], allowPrivateNetwork: true })(`${origin}/echo`)).rejects.toThrow(
      /not on the allow-list/,
    );
    await expect(guarded()(`${origin}/redirect-meta`)).rejects.toSatisfy((error) => FetchDeniedError.isInstance(error));
    await expect(guarded()('file:///etc/passwd')).rejects.toThrow(/only http and https/);
  });

  it('gives up on a response head that does not come within timeoutMs', async () => {
    await expect(guarded({ timeoutMs: 100 })(`${origin}/slow-head`)).rejects.toThrow(/no response within 100 ms/);
  });
});

describe('credentials across redirects', () => {
  // Two servers on 127.0.0.1: two origins (ports differ), both on the allow-list.
  const servers: Server[] = [];
  const seen: { server: string; url: string; headers: Record<string, string | string[] | undefined> }[] = [];
  let first: string;
  let second: string;
  beforeAll(async () => {
    for (const name of ['first', 'second']) {
      const server = createServer((req, res) => {
        seen.push({ server: name, url: req.url ?? '', headers: req.headers });
        if (req.url === '/away') res.writeHead(302, { location: `${second}/landing` }).end();
        else if (req.url === '/stay') res.writeHead(307, { location: '/landing' }).end();
        else res.writeHead(200).end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
    }
    [first, second] = servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`) as [string, string];
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  const headers = { authorization: 'Bearer t0ken', Cookie: 'session=s3', 'X-Api-Key': 'k3y', 'x-trace': 'trace-1' };

  it('drops authorization, cookie and the named credential headers when a redirect leaves the origin', async () => {
    const fetch = createGuardedStreamFetch({ allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true, credentialHeaders: ['x-api-key'] });
    expect(await (await fetch(`${first}/away`, { headers })).text()).toBe('ok');
    const landed = seen.at(-1)!;
    expect(landed).toMatchObject({ server: 'second', url: '/landing' });
    expect(landed.headers).not.toHaveProperty('authorization');
    expect(landed.headers).not.toHaveProperty('cookie');
    expect(landed.headers).not.toHaveProperty('x-api-key');
    expect(landed.headers['x-trace']).toBe('trace-1');
  });

  it('keeps them on a redirect within the origin', async () => {
    const fetch = createGuardedStreamFetch({ allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true, credentialHeaders: ['x-api-key'] });
    await (await fetch(`${first}/stay`, { headers })).text();
    expect(seen.at(-1)).toMatchObject({ server: 'first', url: '/landing', headers: { authorization: 'Bearer t0ken', cookie: 'session=s3', 'x-api-key': 'k3y' } });
  });

  it('does the same in the buffered guarded fetch', async () => {
    const fetch = createGuardedFetch({ allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true, credentialHeaders: ['X-API-KEY'] });
    expect((await fetch(`${first}/away`, { headers })).body).toBe('ok');
    expect(seen.at(-1)!.headers).not.toHaveProperty('authorization');
    expect(seen.at(-1)!.headers).not.toHaveProperty('x-api-key');
  });
});
