import { once } from 'node:events';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSseWriter } from './sse-writer.ts';

interface Served {
  body: string;
  /**
   * The chunks the response was given, in order, by `write` and by `end`, and the HTTP
   * chunks the writer sent straight to the socket (as `write`, their data only).
   */
  calls: { method: 'write' | 'end'; text: string }[];
}

/** The data of one HTTP chunk (`<size>\r\n<data>\r\n`), checking its size line. */
function chunkData(chunk: string): string {
  const at = chunk.indexOf('\r\n');
  const data = chunk.slice(at + 2, -2);
  expect(Number.parseInt(chunk.slice(0, at), 16)).toBe(Buffer.byteLength(data));
  expect(chunk.endsWith('\r\n')).toBe(true);
  return data;
}

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(async (server) => new Promise((resolve) => server.close(resolve))));
});

/** Serves one SSE response driven by `script` on 127.0.0.1 and reads it back. */
async function serve(script: (res: ServerResponse) => Promise<void>): Promise<Served> {
  const calls: Served['calls'] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    // The response's own writes reach the socket too: only the writer's direct ones are recorded there.
    let inResponse = false;
    res.write = ((chunk: string) => {
      calls.push({ method: 'write', text: chunk });
      inResponse = true;
      try {
        return write(chunk);
      } finally {
        inResponse = false;
      }
    }) as typeof res.write;
    res.end = ((chunk?: string) => {
      calls.push({ method: 'end', text: chunk ?? '' });
      inResponse = true;
      try {
        return end(chunk);
      } finally {
        inResponse = false;
      }
    }) as typeof res.end;
    const socket = res.socket!;
    const socketWrite = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (!inResponse && typeof chunk === 'string') calls.push({ method: 'write', text: chunkData(chunk) });
      return socketWrite(chunk, ...rest);
    });
    void script(res);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/`);
  return { body: await response.text(), calls };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createSseWriter', () => {
  it('sends ready SSE text (writeText) in the same write as the frames around it', async () => {
    const { body, calls } = await serve(async (res) => {
      const writer = createSseWriter(res);
      await writer.write([{ a: 1 }]);
      await writer.writeText('data: {"b":2}\n\n');
      await nextTurn();
      writer.done();
    });
    expect(body).toBe('data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n');
    expect(calls[0]).toEqual({ method: 'write', text: 'data: {"a":1}\n\ndata: {"b":2}\n\n' });
  });

  it('flushes every stream that wrote in a turn at the end of that turn, each in one write', async () => {
    const turn: { release: () => void } = { release: () => undefined };
    const released = new Promise<void>((resolve) => (turn.release = resolve));
    const writers: ReturnType<typeof createSseWriter>[] = [];
    // Two responses whose writers get frames in the same turn.
    const both = Promise.all(
      ['x', 'y'].map((name) =>
        serve(async (res) => {
          const writer = createSseWriter(res);
          writers.push(writer);
          await released;
          await writer.write([{ [name]: 1 }]);
          await writer.write([{ [name]: 2 }]);
          await nextTurn();
          writer.done();
        }),
      ),
    );
    while (writers.length < 2) await nextTurn();
    turn.release();
    const [x, y] = await both;
    expect(x?.calls[0]).toEqual({ method: 'write', text: 'data: {"x":1}\n\ndata: {"x":2}\n\n' });
    expect(y?.calls[0]).toEqual({ method: 'write', text: 'data: {"y":1}\n\ndata: {"y":2}\n\n' });
  });

  it('sends the frames of one turn of the event loop and [DONE] with the end of the response, in one call', async () => {
    const { body, calls } = await serve(async (res) => {
      const writer = createSseWriter(res);
      await writer.write([{ a: 1 }]);
      await writer.write([{ b: 2 }, { c: 3 }]);
      writer.done();
    });
    expect(body).toBe('data: {"a":1}\n\ndata: {"b":2}\n\ndata: {"c":3}\n\ndata: [DONE]\n\n');
    expect(calls).toEqual([{ method: 'end', text: 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: {"c":3}\n\ndata: [DONE]\n\n' }]);
  });

  it('sends frames at the end of their turn of the event loop, before later ones', async () => {
    const { body, calls } = await serve(async (res) => {
      const writer = createSseWriter(res);
      await writer.write([{ a: 1 }]);
      await writer.write([{ b: 2 }]);
      await nextTurn();
      await writer.write([{ c: 3 }]);
      await nextTurn();
      writer.done();
    });
    expect(body).toBe('data: {"a":1}\n\ndata: {"b":2}\n\ndata: {"c":3}\n\ndata: [DONE]\n\n');
    expect(calls).toEqual([
      { method: 'write', text: 'data: {"a":1}\n\ndata: {"b":2}\n\n' },
      { method: 'write', text: 'data: {"c":3}\n\n' },
      { method: 'end', text: 'data: [DONE]\n\n' },
    ]);
  });

  it('sends the frames after the first write to the socket as HTTP chunks sized in bytes, as the response would', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const writer = createSseWriter(res);
      void (async () => {
        await writer.write([{ a: 'first' }]);
        await nextTurn();
        await writer.write([{ b: 'é 😀 \u2028' }]);
        await nextTurn();
        writer.done();
      })();
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // The raw bytes, chunk framing included.
    const socket = connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    const parts: Buffer[] = [];
    for await (const part of socket) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    const frame = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
    const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    expect(body).toBe(`${chunk(frame({ a: 'first' }))}${chunk(frame({ b: 'é 😀 \u2028' }))}${chunk('data: [DONE]\n\n')}0\r\n\r\n`);
  });

  it('ends without [DONE] after an error frame, keeping the frame', async () => {
    const { body } = await serve(async (res) => {
      const writer = createSseWriter(res);
      await writer.write([{ error: { message: 'upstream hung up' } }]);
      writer.end();
    });
    expect(body).toBe('data: {"error":{"message":"upstream hung up"}}\n\n');
  });

  it('sends a large batch at once instead of holding it to the end of the turn', async () => {
    const big = 'x'.repeat(20_000);
    const { body, calls } = await serve(async (res) => {
      const writer = createSseWriter(res);
      await writer.write([{ big }]);
      writer.done();
    });
    expect(body).toBe(`data: {"big":"${big}"}\n\ndata: [DONE]\n\n`);
    expect(calls.map((c) => c.method)).toEqual(['write', 'end']);
  });

  it('reports false, and throws nothing, when the client resets the connection while the writer waits for the socket', async () => {
    let settled!: (value: { result: boolean; errors: number }) => void;
    const outcome = new Promise<{ result: boolean; errors: number }>((resolve) => (settled = resolve));
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let errors = 0;
      const writer = createSseWriter(res, { onError: () => errors++ });
      void (async () => {
        // Fill the socket until the writer has to wait for 'drain', which never comes.
        let open = true;
        for (let i = 0; i < 1000 && open; i++) open = await writer.write([{ big: 'y'.repeat(64 * 1024) }]);
        const result = await writer.write([{ after: true }]);
        writer.end();
        settled({ result, errors });
      })();
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    // The client stops reading, then goes away.
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    const { result } = await outcome;
    expect(result).toBe(false);
  });

  it('reports false for frames written after the response ended', async () => {
    let late: boolean | undefined;
    await serve(async (res) => {
      const writer = createSseWriter(res);
      writer.done();
      late = await writer.write([{ a: 1 }]);
    });
    expect(late).toBe(false);
  });

  it('keeps no listener per wait for the socket: a slow client makes it wait many times', async () => {
    let listeners: { close: number; error: number; drain: number; socketDrain: number } | undefined;
    let waits = 0;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const writer = createSseWriter(res);
      void (async () => {
        for (let i = 0; i < 300; i++) {
          const result = writer.write([{ big: 'z'.repeat(64 * 1024) }]);
          if (typeof result !== 'boolean') {
            waits++;
            if (!(await result)) break;
          }
        }
        listeners = { close: res.listenerCount('close'), error: res.listenerCount('error'), drain: res.listenerCount('drain'), socketDrain: res.socket?.listenerCount('drain') ?? 0 };
        writer.done();
      })();
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const reader = response.body!.getReader();
    // A slow reader: a pause now and then, so that the writer's buffer fills again and again.
    for (let read = await reader.read(), n = 0; !read.done; read = await reader.read(), n++) if (n % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(waits).toBeGreaterThan(5);
    // What Node and the writer attach once, not one per wait.
    expect(listeners!.drain).toBe(0);
    expect(listeners!.socketDrain).toBeLessThan(3);
    expect(listeners!.close).toBeLessThan(5);
    expect(listeners!.error).toBeLessThan(5);
  });

  it('fails only the response whose write throws in the shared end-of-turn flush; the others get their frames', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown): void => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      let broken: ServerResponse | undefined;
      let brokenWriter: ReturnType<typeof createSseWriter> | undefined;
      let requests = 0;
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (++requests === 1) {
          broken = res;
          const writer = createSseWriter(res);
          brokenWriter = writer;
          res.write = (() => {
            throw new Error('write failed');
          }) as typeof res.write;
          void writer.write([{ a: 1 }]);
          return;
        }
        const writer = createSseWriter(res);
        void writer.write([{ b: 2 }]);
        setImmediate(() => setImmediate(() => writer.done()));
      });
      servers.push(server);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const first = fetch(`http://127.0.0.1:${port}/`).then((res) => res.text()).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await fetch(`http://127.0.0.1:${port}/`).then((res) => res.text());
      expect(second).toBe('data: {"b":2}\n\ndata: [DONE]\n\n');
      await first;
      expect(broken?.destroyed).toBe(true);
      // Its stream learns at its next write that the response is gone.
      expect(brokenWriter?.write([{ c: 3 }])).toBe(false);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
