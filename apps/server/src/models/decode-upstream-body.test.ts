import { once } from 'node:events';
import { createServer, get } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeUpstreamBody } from './decode-upstream-body.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** The decoded text of a body sent with `coding`, or the error reading it failed with. */
async function decode(coding: string, body: Buffer): Promise<string | Error> {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': String(body.length) }).end(body));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<IncomingMessage>((resolve, reject) => get({ host: '127.0.0.1', port, path: '/', agent: false }, resolve).on('error', reject));
  const decoded = decodeUpstreamBody(res);
  let text = '';
  try {
    for await (const chunk of decoded) text += String(chunk);
    return text;
  } catch (error) {
    return error as Error;
  }
}

describe('decodeUpstreamBody', () => {
  it('reads an empty body as empty, whatever its Content-Encoding says (as undici does)', async () => {
    expect(await decode('gzip', Buffer.alloc(0))).toBe('');
    expect(await decode('br', Buffer.alloc(0))).toBe('');
  });

  it('reads deflate sent raw as well as zlib-wrapped, and gzip members one after another', async () => {
    expect(await decode('deflate', deflateRawSync('{"raw":true}'))).toBe('{"raw":true}');
    expect(await decode('gzip', Buffer.concat([gzipSync('{"a":'), gzipSync('1}')]))).toBe('{"a":1}');
  });

  it('fails a truncated gzip body with an error naming the coding', async () => {
    const error = await decode('gzip', gzipSync('{"a":1234567890}').subarray(0, 12));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^The upstream's body is not what its Content-Encoding: gzip says \(unexpected end of file\)/u);
  });
});
