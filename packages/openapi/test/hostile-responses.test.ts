import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { executeToolCall, ToolRegistry } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../src/index.ts';

// An API at its worst: it echoes the credential wherever it can, compresses what it was asked
// not to, nests without end, trickles, and answers errors with pages of HTML.
const KEY = 'sk-live-4f9a8b7c6d5e';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const modes: Record<string, Handler> = {
  'status-echo': (req, res) => res.writeHead(500, `key ${String(req.headers['x-api-key'])} refused`, { 'content-type': 'text/plain' }).end('no'),
  'retry-echo': (req, res) => res.writeHead(429, { 'retry-after': String(req.headers['x-api-key']) }).end(),
  'retry-huge': (_req, res) => res.writeHead(429, { 'retry-after': '1e300' }).end(),
  'json-escaped': (_req, res) => {
    const escaped = Array.from({ length: KEY.length }, (_, i) => `\\u${KEY.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"token":"${escaped}"}`);
  },
  gzip: (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ a: 'z'.repeat(500_000) }))),
  deep: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
  'html-500': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' });
    const page = `<h1>Internal error</h1>${'<p>stack frame</p>'.repeat(5000)}`;
    let sent = 0;
    const write = () => {
      while (sent < 60) {
        sent++;
        if (!res.write(page)) return;
      }
      res.end();
    };
    res.on('drain', write);
    write();
  },
  'echo-headers': (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(Object.values(req.headers).join(' | ')),
  // An error page past the size cap whose cut falls inside the echoed key: its start must not show.
  'cut-in-key': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.write(`bad key ${KEY.slice(0, 12)}`);
    const timer = setTimeout(() => res.end(`${KEY.slice(12)} ${'y'.repeat(1000)}`), 200);
    res.on('close', () => clearTimeout(timer));
  },
  // The key as APIs and proxies echo it: upper case, percent- and entity-encoded, in a Basic credential, cut.
  spellings: (req, res) => {
    const key = String(req.headers['x-api-key']);
    const body = [
      `KEY ${key.toUpperCase()}`,
      `url /r?key=${key.replaceAll('-', '%2D')}`,
      `html ${key.replaceAll('-', '&#x2d;')}`,
      `auth Basic ${Buffer.from(`me:${key}`).toString('base64')}`,
      `cut ${key.slice(0, 12)}...`,
    ].join('\n');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  },
  bom: (_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('\ufeff{"ok":true}'),
  trickle: (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), 50);
    res.on('close', () => clearInterval(timer));
  },
};

let server: Server;
let origin: string;
const closed: string[] = [];
// Another origin on the allow-list (same address, another port) that a redirect sends the call to.
let elsewhere: Server;
let elsewhereOrigin: string;
const landed: IncomingMessage['headers'][] = [];
beforeAll(async () => {
  elsewhere = createServer((req, res) => {
    landed.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"landed":true}');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  modes['redirect-away'] = (_req, res) => res.writeHead(302, { location: `${elsewhereOrigin}/landing` }).end();
  server = createServer((req, res) => {
    const mode = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('mode') ?? '';
    res.on('close', () => closed.push(mode));
    (modes[mode] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const each of [server, elsewhere]) {
    each.closeAllConnections();
    await new Promise<void>((resolve) => each.close(() => resolve()));
  }
});

const document = {
  openapi: '3.0.3',
  info: { title: 'worst', version: '1' },
  paths: {
    '/r': {
      get: {
        operationId: 'r',
        parameters: [{ name: 'mode', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'ok' } },
      },
    },
  },
};

function tools(timeoutMs = 5000): Promise<Tool[]> {
  return openApiTools(document, { baseURL: origin, allowPrivateNetwork: true, timeoutMs, auth: { type: 'header', name: 'x-api-key', value: KEY } });
}

async function call(mode: string, timeoutMs?: number): Promise<ToolResult> {
  const result = await executeToolCall({ id: `call_${mode}`, name: 'r', arguments: { mode } }, { registry: new ToolRegistry({ tools: await tools(timeoutMs) }) });
  // Whatever reaches the model, a log or the gateway must be writable and free of the key.
  const written = JSON.stringify(result);
  expect(written).not.toContain(KEY);
  return result;
}

describe('responses of a hostile API', () => {
  // Found by fuzzing: the byte-order mark some servers put first kept the body from parsing as JSON.
  it('parses a JSON body that starts with a byte-order mark', async () => {
    const result = await call('bom');
    expect(result).toMatchObject({ success: true, message: '{"ok":true}', value: { body: { ok: true } } });
  });

  it('redacts a credential echoed in the status line', async () => {
    const result = await call('status-echo');
    expect(result.message).toBe('GET /r answered HTTP 500 key [redacted] refused: no. The API failed on its side; try again once, or answer without it.');
  });

  it('reads retry-after only as seconds or a date, never as text to repeat', async () => {
    expect((await call('retry-echo')).message).toContain('try again later.');
    const huge = await call('retry-huge');
    expect(huge).toMatchObject({ success: false, error: { type: 'rate_limited' } });
    expect(huge.message).toContain('try again after 604800 s.');
  });

  it('redacts a credential hidden behind JSON escapes, in the message and the value', async () => {
    const result = await call('json-escaped');
    expect(result).toMatchObject({ success: true, message: '{"token":"[redacted]"}', value: { body: { token: '[redacted]' } } });
  });

  it('redacts a credential echoed in other spellings: another case, encoded, in base64, cut', async () => {
    const result = await call('spellings');
    expect(result.message).toBe(['KEY [redacted]', 'url /r?key=[redacted]', 'html [redacted]', 'auth Basic [redacted]', 'cut [redacted]...'].join('\n'));
  });

  it('describes a compressed body it did not ask for instead of showing the bytes', async () => {
    const result = await call('gzip');
    expect(result.message).toMatch(/^\[gzip-encoded application\/json, about \d+ bytes, not shown\]$/);
  });

  it('keeps JSON nested 100 000 deep as text, so the result can still be written out', async () => {
    const result = await call('deep');
    expect(result.success).toBe(true);
    expect(typeof (result.value as { body: unknown }).body).toBe('string');
  });

  it('shows the start of an error page past maxResponseBytes with its status, not "ask for less"', async () => {
    const result = await call('html-500');
    expect(result).toMatchObject({ success: false, error: { type: 'execution_error' }, value: { status: 500 } });
    expect(result.message).toMatch(/^GET \/r answered HTTP 500 Internal Server Error: <h1>Internal error<\/h1>/);
    expect(result.message).toContain('[the body is larger than 1048576 bytes; only its start is shown]');
    expect(result.message).toContain('failed on its side');
  });

  it('times out a body that trickles past timeoutMs and closes the connection', async () => {
    const result = await call('trickle', 300);
    expect(result).toMatchObject({ success: false, error: { type: 'timeout' } });
    await expect.poll(() => closed.includes('trickle'), { timeout: 5000 }).toBe(true);
  });

  it('does not carry the key to another origin a redirect names', async () => {
    const result = await call('redirect-away');
    expect(result).toMatchObject({ success: true, value: { body: { landed: true } } });
    expect(landed.at(-1)).not.toHaveProperty('x-api-key');
  });

  it('treats static headers named like credentials (auth, password, session) as secrets', async () => {
    // Not only `*key*`, `*token*`, `*secret*`: these too are redacted and stay with their origin.
    const headers = { 'X-Auth': 'static-auth-7a6b5c', 'X-Account-Password': 'pw-0f1e2d3c4b', 'X-Session': 'sess-9a8b7c6d5e', 'X-Credential': 'cred-1a2b3c4d' };
    const registry = new ToolRegistry({ tools: await openApiTools(document, { baseURL: origin, allowPrivateNetwork: true, headers }) });
    const echoed = await executeToolCall({ id: 'call_h', name: 'r', arguments: { mode: 'echo-headers' } }, { registry });
    const away = await executeToolCall({ id: 'call_a', name: 'r', arguments: { mode: 'redirect-away' } }, { registry });
    expect(away).toMatchObject({ success: true, value: { body: { landed: true } } });
    for (const [name, value] of Object.entries(headers)) {
      expect(JSON.stringify(echoed)).not.toContain(value);
      expect(landed.at(-1)).not.toHaveProperty(name.toLowerCase());
    }
  });

  it('does not show the start of a key that the size cap cut in two', async () => {
    const registry = new ToolRegistry({
      tools: await openApiTools(document, { baseURL: origin, allowPrivateNetwork: true, maxResponseBytes: 64, auth: { type: 'header', name: 'x-api-key', value: KEY } }),
    });
    const result = await executeToolCall({ id: 'call_cut', name: 'r', arguments: { mode: 'cut-in-key' } }, { registry });
    expect(result).toMatchObject({ success: false, value: { status: 500 } });
    // The cut may fall anywhere in the key (or before it, if the two writes arrive as one).
    for (let n = 4; n <= 12; n++) expect(JSON.stringify(result)).not.toContain(KEY.slice(0, n));
  });
});
