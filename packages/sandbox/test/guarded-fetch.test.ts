import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, createJsSandbox, FetchDeniedError, isAllowedDomain, isPrivateAddress } from '../src/index.ts';
import type { JsSandbox } from '../src/index.ts';

describe('isAllowedDomain', () => {
  it('matches exact names and *.suffix subdomains, ignoring case and a trailing dot', () => {
    const list = ['api.example.com', '*.wiki.org'];
    expect(isAllowedDomain('API.Example.com.', list)).toBe(true);
    expect(isAllowedDomain('en.wiki.org', list)).toBe(true);
    expect(isAllowedDomain('a.b.wiki.org', list)).toBe(true);
    expect(isAllowedDomain('wiki.org', list)).toBe(false);
    expect(isAllowedDomain('evilwiki.org', list)).toBe(false);
    expect(isAllowedDomain('api.example.com.evil.net', list)).toBe(false);
    expect(isAllowedDomain('x', [])).toBe(false);
  });
});

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, metadata and IPv4-embedding IPv6 forms', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', 'not-an-ip']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::6810:85e5']) expect(isPrivateAddress(address), address).toBe(false);
  });
});

describe('createGuardedFetch against a 127.0.0.1 server', () => {
  let server: Server;
  let origin: string;
  const paths: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/redirect-out') res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/secret` }).end();
      else if (req.url === '/redirect-meta') res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (req.url === '/redirect-in') res.writeHead(307, { location: '/hello' }).end();
      else if (req.url === '/big') res.end('x'.repeat(5000));
      else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain', 'x-test': 'yes' }).end(`hello ${req.method} ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const open = () => createGuardedFetch({ allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true, maxResponseBytes: 1000 });

  it('fetches an allowed host and follows same-host redirects', async () => {
    const response = await open()(`${origin}/redirect-in`);
    expect(response).toMatchObject({ status: 200, body: 'hello GET /hello', url: `${origin}/hello` });
    expect(response.headers['x-test']).toBe('yes');
  });

  it('re-checks every redirect: a hop to a host off the list or to the metadata address is refused', async () => {
    await expect(open()(`${origin}/redirect-out`)).rejects.toThrow(/"localhost" is not on the allow-list/);
    await expect(open()(`${origin}/redirect-meta`)).rejects.toThrow(/not on the allow-list/);
    expect(paths).not.toContain('/secret');
  });

  it('caps the response size and the number of redirects', async () => {
    await expect(open()(`${origin}/big`)).rejects.toThrow(/larger than 1000 bytes/);
    await expect(open()(`${origin}/loop`)).rejects.toThrow(/more than 5 redirects/);
  });

  it('refuses loopback and private addresses unless allowed, also behind an allowed name', async () => {
    const strict = createGuardedFetch({ allowedDomains: ['127.0.0.1', '[::1]', '169.254.169.254', 'api.example.com'], resolve: async () => ['127.0.0.1'] });
    for (const url of [`${origin}/`, 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://api.example.com/']) {
      const error: unknown = await strict(url).then(() => undefined, (e: unknown) => e);
      expect(FetchDeniedError.isInstance(error), url).toBe(true);
      expect((error as Error).message).toMatch(/private, loopback or link-local/);
    }
  });

  it('refuses other schemes and credentials in the URL', async () => {
    const fetchUrl = open();
    await expect(fetchUrl('file:///etc/passwd')).rejects.toThrow(/only http and https/);
    await expect(fetchUrl(`http://user:pw@127.0.0.1:1/`)).rejects.toThrow(/credentials/);
  });
});

describe('fetch inside the JS sandbox', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  let sandbox: JsSandbox;
  let strictSandbox: JsSandbox;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/redirect-out') res.writeHead(302, { location: `http://localhost:${port}/` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, method: req.method }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    sandbox = createJsSandbox({ allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true, poolSize: 1 });
    strictSandbox = createJsSandbox({ allowedDomains: ['api.example.com', '127.0.0.1', '169.254.169.254', '[::1]'], poolSize: 1 });
  });
  afterAll(async () => {
    await Promise.all([sandbox.dispose(), strictSandbox.dispose()]);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('returns a Response-like object for an allowed host', async () => {
    const result = await sandbox.run(`(async () => { const r = await fetch('http://127.0.0.1:${port}/data', { method: 'POST', body: 'x' });
      return { ok: r.ok, status: r.status, type: r.headers.get('Content-Type'), json: await r.json() }; })()`);
    expect(result).toMatchObject({ ok: true, value: { ok: true, status: 200, type: 'application/json', json: { path: '/data', method: 'POST' } } });
  });

  it('rejects with a normal sandbox error for a redirect off the list', async () => {
    const before = hits;
    const result = await sandbox.run(`fetch('http://127.0.0.1:${port}/redirect-out').then(() => 'fetched', (e) => e instanceof TypeError ? e.message : 'odd')`);
    expect(result.ok && String(result.value)).toContain('"localhost" is not on the allow-list');
    expect(hits).toBe(before + 1);
  });

  it('blocks 127.0.0.1, 169.254.169.254 and [::1] even when listed, and hosts off the list', async () => {
    const before = hits;
    const result = await strictSandbox.run(`Promise.all(['http://127.0.0.1:${port}/', 'http://169.254.169.254/', 'http://[::1]:${port}/', 'https://evil.example.net/']
      .map((u) => fetch(u).then(() => 'fetched', (e) => e.message)))`);
    expect(result.ok).toBe(true);
    const messages = (result as { value: string[] }).value;
    expect(messages.slice(0, 3).every((m) => m.includes('private, loopback or link-local'))).toBe(true);
    expect(messages[3]).toContain('not on the allow-list');
    expect(hits).toBe(before);
  });
});
