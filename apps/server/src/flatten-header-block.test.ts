import { execFileSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { OutgoingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { flattenHeaderBlock } from './flatten-header-block.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))));

const headerOf = (message: OutgoingMessage): unknown => (message as unknown as { _header?: unknown })._header;

describe('flattenHeaderBlock', () => {
  it('leaves the header block the same text, and the request and response go out as before', async () => {
    let seen: Record<string, string | string[] | undefined> = {};
    let responseBlock: { before: unknown; after: unknown } | undefined;
    server = createServer((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'text/plain', 'x-one': 'a', 'x-two': 'b' });
      const before = headerOf(res);
      flattenHeaderBlock(res);
      responseBlock = { before, after: headerOf(res) };
      res.end('ok');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const headers = ['content-type', 'application/json', 'authorization', 'Bearer sk-test', 'x-stainless-retry-count', '0', 'host', `127.0.0.1:${port}`, 'content-length', '2'];
    const req = request({ hostname: '127.0.0.1', port, path: '/x', method: 'POST', headers });
    const before = headerOf(req);
    flattenHeaderBlock(req);
    expect(typeof before).toBe('string');
    expect(headerOf(req)).toBe(before);
    const answer = await new Promise<string>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => resolve(`${String(res.headers['x-one'])} ${String(res.headers['x-two'])} ${text}`));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(answer).toBe('a b ok');
    expect(seen).toMatchObject({ authorization: 'Bearer sk-test', 'x-stainless-retry-count': '0', 'content-type': 'application/json' });
    expect(responseBlock?.after).toBe(responseBlock?.before);
  });

  it('still flattens the block once V8 has optimized it (a search whose result goes unused would be dropped)', () => {
    // In a Node of its own that lets the script ask V8 to optimize the function and whether a
    // string is flat (the flag cannot be turned on in a running process).
    const script = `
      import { flattenHeaderBlock, lastFlattenedBlockEnd } from ${JSON.stringify(new URL('./flatten-header-block.ts', import.meta.url).href)};
      // A header block as Node builds it: one line appended at a time, a rope.
      const block = (i) => {
        let text = 'POST /v1/chat/completions HTTP/1.1\\r\\n';
        for (let k = 0; k < 12; k++) text += 'x-header-' + k + ': value-' + i + '-' + k + '\\r\\n';
        return text + '\\r\\n';
      };
      %PrepareFunctionForOptimization(flattenHeaderBlock);
      for (let i = 0; i < 20; i++) flattenHeaderBlock({ _header: block(i) });
      %OptimizeFunctionOnNextCall(flattenHeaderBlock);
      flattenHeaderBlock({ _header: block(20) });
      const rope = { _header: block(21) };
      const before = %StringIsFlat(rope._header);
      flattenHeaderBlock(rope);
      console.log(JSON.stringify({ status: %GetOptimizationStatus(flattenHeaderBlock), before, after: %StringIsFlat(rope._header), end: lastFlattenedBlockEnd(), length: rope._header.length }));
    `;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '--eval', script], { encoding: 'utf8' });
    const result = JSON.parse(out) as { status: number; before: boolean; after: boolean; end: number; length: number };
    // Bit 4 (16): optimized; bit 6 (64): by TurboFan.
    expect(result.status & (16 | 64)).toBe(16 | 64);
    expect(result).toMatchObject({ before: false, after: true, end: result.length - 4 });
  });

  it('leaves a message whose header block is not built yet alone', async () => {
    server = createServer((_req, res) => {
      flattenHeaderBlock(res);
      expect(res.headersSent).toBe(false);
      res.setHeader('x-late', 'yes');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.headers.get('x-late')).toBe('yes');
    expect(await res.text()).toBe('ok');
  });
});
