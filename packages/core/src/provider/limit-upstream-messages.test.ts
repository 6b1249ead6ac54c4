import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamMessageTooLargeError } from '../errors.ts';
import { attachBodyReader, takeBodyReader } from './body-reader.ts';
import type { BodyReader } from './body-reader.ts';
import { markFetchSignal, readsFetchSignal } from './fetch-signal.ts';
import { limitUpstreamMessages } from './limit-upstream-messages.ts';

const setting = 'the maxMessageBytes option';
let server: Server;
let origin: string;
/** How each answer's connection ended: `closed` once its socket closed. */
const closed: string[] = [];

/** `/sse/<n>`: events of `n` bytes; `/json/<n>`: a JSON body of `n` bytes; `/empty`: a 204; `/endless`: a body that never ends. */
function answer(path: string, res: ServerResponse): void {
  const [, kind, size] = path.split('/');
  const n = Number(size);
  res.socket?.once('close', () => closed.push(path));
  if (kind === 'sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-id': 'sse' });
    res.end(`data: ${'a'.repeat(n - 8)}\n\n`.repeat(4));
  } else if (kind === 'json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`"${'b'.repeat(n - 2)}"`);
  } else if (kind === 'empty') {
    res.writeHead(204).end();
  } else {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const write = (): void => {
      while (!res.destroyed && res.write('data: endless\n')) {
        // Until the socket is full.
      }
      if (!res.destroyed) res.once('drain', write);
    };
    write();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => answer(req.url ?? '/', res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('limitUpstreamMessages', () => {
  const fetch = limitUpstreamMessages(undefined, { maxBytes: 1000, setting });

  it('passes messages under the limit, with the status, headers and URL of the response', async () => {
    const response = await fetch(`${origin}/sse/1000`);
    expect([response.status, response.headers.get('x-id'), response.url]).toEqual([200, 'sse', `${origin}/sse/1000`]);
    // Read as a stream: each event is a message.
    let size = 0;
    for await (const chunk of response.body as ReadableStream<Uint8Array>) size += chunk.length;
    expect(size).toBe(4000);
    expect(await (await fetch(`${origin}/json/1000`)).json()).toHaveLength(998);
  });

  it('counts a body read whole (text(), json(), a reader claimed whole) as one message, whatever its media type', async () => {
    // An SDK reads an error's body, or an answer it asked for whole, with text(): it holds all of it.
    await expect((await fetch(`${origin}/sse/1000`)).text()).rejects.toMatchObject({ name: 'UpstreamMessageTooLargeError', part: 'body' });
    await expect((await fetch(`${origin}/sse/1000`)).json()).rejects.toMatchObject({ name: 'UpstreamMessageTooLargeError', part: 'body' });
    const reader = takeBodyReader(await fetch(`${origin}/sse/1000`), { whole: true }) as BodyReader;
    const read = async (): Promise<void> => {
      while ((await reader.read()) !== undefined);
    };
    await expect(read()).rejects.toMatchObject({ name: 'UpstreamMessageTooLargeError', part: 'body' });
  });

  it("fails the body's read past the limit, naming the limit, the origin and the setting, and closes the connection", async () => {
    const error = await (await fetch(`${origin}/json/1001`)).text().catch((e: unknown) => e);
    expect(UpstreamMessageTooLargeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `The upstream at ${origin} sent a response body larger than 1000 bytes; the request was stopped so that it cannot exhaust the process's memory. If the upstream really sends messages this large, raise ${setting}.`,
    );
    const endless = (await fetch(`${origin}/endless`)).body as ReadableStream<Uint8Array>;
    const drain = async (): Promise<void> => {
      const reader = endless.getReader();
      while (!(await reader.read()).done);
    };
    await expect(drain()).rejects.toMatchObject({ name: 'UpstreamMessageTooLargeError', part: 'event' });
    await expect.poll(() => closed.includes('/endless'), { timeout: 5000 }).toBe(true);
  });

  it("hands providers a counted BodyReader, after which the web body refuses; later reads fail with the limit's error", async () => {
    const response = await fetch(`${origin}/endless`);
    const reader = takeBodyReader(response) as BodyReader;
    expect(takeBodyReader(response)).toBeUndefined();
    await expect(response.text()).rejects.toThrow(/already taken by a body reader/u);
    let failure: unknown;
    for (;;) {
      try {
        if ((await reader.read()) === undefined) break;
      } catch (error) {
        failure = error;
        break;
      }
    }
    expect(UpstreamMessageTooLargeError.isInstance(failure)).toBe(true);
    await expect(reader.read()).rejects.toBe(failure);
  });

  it("reads through the inner fetch's own BodyReader when it attached one, and keeps its FETCH_SIGNAL mark", async () => {
    let claimed = 0;
    const inner = markFetchSignal(async (input, init) => {
      const response = await globalThis.fetch(input, init);
      const body = response.body as ReadableStream<Uint8Array>;
      return attachBodyReader(response, {
        claim: () => {
          claimed++;
          const reader = body.getReader();
          return { read: () => reader.read().then((r) => (r.done ? undefined : [r.value])), cancel: () => void reader.cancel() };
        },
      });
    });
    const limited = limitUpstreamMessages(inner, { maxBytes: 1000, setting });
    expect(readsFetchSignal(limited)).toBe(true);
    expect(readsFetchSignal(fetch)).toBe(false);
    const reader = takeBodyReader(await limited(`${origin}/json/1001`)) as BodyReader;
    const read = async (): Promise<void> => {
      while ((await reader.read()) !== undefined);
    };
    await expect(read()).rejects.toMatchObject({ name: 'UpstreamMessageTooLargeError' });
    expect(claimed).toBe(1);
  });

  it('leaves a response without a body as it is', async () => {
    const response = await fetch(`${origin}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });
});
