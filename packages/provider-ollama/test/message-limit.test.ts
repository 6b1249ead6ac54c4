// An Ollama server (or something in its place) whose body never ends, for the calls that read
// a whole body: a non-streamed answer, an error, the model list. Each fails with
// `UpstreamMessageTooLargeError` naming `maxMessageBytes`, and the server is cut soon after
// the limit. (A streamed line past it: test/ndjson-framing.test.ts.)
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError, UpstreamMessageTooLargeError } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { ENDLESS_BYTES, pourEndless } from '../../../test/endless-upstream.ts';

const MIB = 1024 * 1024;
/** What a hostile server writes if nobody stops it. */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

/** A server whose every body is endless JSON, answered with `status`; `written` has each body's bytes once its connection closed. */
async function endlessServer(status: number): Promise<{ host: string; written: number[] }> {
  const written: number[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      void pourEndless(res, '{"error":"').then((bytes) => {
        if (res.socket === null || res.socket.destroyed) written.push(bytes);
        else res.socket.once('close', () => written.push(bytes));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written };
}

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('an Ollama body larger than maxMessageBytes', () => {
  const cases = [
    { what: 'a non-streamed answer', status: 200, call: (host: string) => createOllama({ host, maxMessageBytes: MIB }).chat('m').generate(request) },
    { what: 'the model list', status: 200, call: (host: string) => createOllama({ host, maxMessageBytes: MIB }).listModels() },
  ];
  for (const { what, status, call } of cases) {
    it(`fails with UpstreamMessageTooLargeError and cuts the server: ${what}`, async () => {
      const { host, written } = await endlessServer(status);
      const error = await call(host).catch((e: unknown) => e);
      expect(UpstreamMessageTooLargeError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/sent a response body larger than 1 MiB;.*raise the maxMessageBytes option of createOllama\./su);
      await expect.poll(() => written.length, { timeout: 10_000 }).toBe(1);
      expect(written[0]).toBeLessThan(MIB + 16 * MIB);
    });
  }

  it('counts a non-streamed answer framed as NDJSON lines whole (its reader holds all of it)', async () => {
    const written: number[] = [];
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/api/show') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
          return;
        }
        // Short lines without end: each far under the limit, all of them far over it.
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        let bytes = 0;
        const line = `{"pad":"${'y'.repeat(1000)}"}\n`;
        const pourLines = (): void => {
          while (bytes < ENDLESS_BYTES && !res.destroyed) {
            bytes += line.length;
            if (!res.write(line)) {
              res.once('drain', pourLines);
              return;
            }
          }
          res.end();
        };
        res.once('close', () => written.push(bytes));
        pourLines();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const error = await createOllama({ host, maxMessageBytes: MIB }).chat('m').generate(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'UpstreamMessageTooLargeError', part: 'body', limitBytes: MIB });
    await expect.poll(() => written.length, { timeout: 10_000 }).toBe(1);
    expect(written[0]).toBeLessThan(MIB + 16 * MIB);
  });

  it('reads an error body without end only up to the limit, and still reports the status', async () => {
    const { host, written } = await endlessServer(500);
    const error = await createOllama({ host, maxMessageBytes: MIB }).chat('m').generate(request).catch((e: unknown) => e);
    // The client reads an error's body for its message: that read is cut, the error is still the 500's.
    expect(ProviderError.isInstance(error), String(error)).toBe(true);
    expect((error as ProviderError).status).toBe(500);
    await expect.poll(() => written.length, { timeout: 10_000 }).toBe(1);
    expect(written[0]).toBeLessThan(MIB + 16 * MIB);
  });
});
