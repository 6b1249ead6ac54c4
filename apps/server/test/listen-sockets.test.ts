import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { createScriptedModel } from '@toolwire/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { openExtraListeners, supportsReusePort } from '../src/extra-listeners.ts';
import { createServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

const linux = process.platform === 'linux';

/** An HTTP server on 127.0.0.1 bound with `reusePort` (as the gateway binds it), answering `ok`. */
async function reusePortServer(): Promise<{ server: Server; port: number }> {
  const server = createHttpServer((_req, res) => res.end('ok'));
  server.listen({ host: '127.0.0.1', port: 0, reusePort: true });
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return { server, port: address.port };
}

/**
 * Opens `count` connections while the event loop is kept busy (5 ms of work per turn) and
 * returns in how many turns the server saw them all: Node accepts one connection per
 * listening socket per turn.
 */
async function turnsToAccept(server: Server, port: number, count: number): Promise<number> {
  let turn = 0;
  let busy = true;
  const spin = (): void => {
    turn++;
    const end = performance.now() + 5;
    while (performance.now() < end);
    if (busy) setImmediate(spin);
  };
  const turns = new Set<number>();
  const seen = new Promise<void>((resolve) => {
    server.on('connection', () => {
      turns.add(turn);
      if (--remaining === 0) resolve();
    });
  });
  let remaining = count;
  setImmediate(spin);
  const sockets: Socket[] = Array.from({ length: count }, () => connect(port, '127.0.0.1'));
  await seen;
  busy = false;
  for (const socket of sockets) socket.destroy();
  return turns.size;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe.runIf(linux)('extra listening sockets (SO_REUSEPORT)', () => {
  it('hand their connections to the HTTP server, which answers them', async () => {
    const { server, port } = await reusePortServer();
    servers.push(server);
    const extra = await openExtraListeners({ server, host: '127.0.0.1', port, count: 3, backlog: 511 });
    expect(extra.count).toBe(3);
    // Fresh connections each: the kernel spreads them over the four sockets.
    const bodies = await Promise.all(Array.from({ length: 40 }, () => fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } }).then((res) => res.text())));
    expect(bodies).toEqual(Array.from({ length: 40 }, () => 'ok'));
    extra.close();
  });

  it('take a burst of connections in fewer turns of a busy event loop than one socket', async () => {
    const single = await reusePortServer();
    servers.push(single.server);
    // One socket: one connection per turn.
    expect(await turnsToAccept(single.server, single.port, 64)).toBe(64);

    const fanned = await reusePortServer();
    servers.push(fanned.server);
    const extra = await openExtraListeners({ server: fanned.server, host: '127.0.0.1', port: fanned.port, count: 7, backlog: 511 });
    // Eight sockets: the kernel spreads the 64 by a hash, so some take more than 8, but far fewer turns than 64.
    expect(await turnsToAccept(fanned.server, fanned.port, 64)).toBeLessThan(40);
    extra.close();
  });

  it('tell onError about a socket error after binding instead of throwing it', async () => {
    const { server, port } = await reusePortServer();
    servers.push(server);
    const errors: Error[] = [];
    const extra = await openExtraListeners({ server, host: '127.0.0.1', port, count: 2, backlog: 511, onError: (error) => errors.push(error) });
    // An accept that failed (EMFILE, say) arrives as an 'error' on the listening socket; without a listener Node throws it.
    for (const socket of extra.sockets) socket.emit('error', new Error('accept failed'));
    expect(errors.map((e) => e.message)).toEqual(['accept failed', 'accept failed']);
    extra.close();
  });

  it('fail cleanly when the port is bound exclusively', async () => {
    const server = createHttpServer();
    servers.push(server);
    server.listen({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    await expect(openExtraListeners({ server, host: '127.0.0.1', port: address.port, count: 2, backlog: 511 })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

describe('the gateway with limits.listenSockets', () => {
  it('serves on every socket and frees the port on close', async () => {
    const model = createScriptedModel([]);
    const { server, origin } = await startGateway(model, { limits: { listenSockets: 4 } });
    const statuses = await Promise.all(Array.from({ length: 24 }, () => fetch(`${origin}/healthz`, { headers: { connection: 'close' } }).then(async (res) => (await res.text(), res.status))));
    expect(statuses).toEqual(Array.from({ length: 24 }, () => 200));
    await server.close();
    // Nothing listens on the port any more: not the gateway's socket, not the extra ones.
    const port = Number(new URL(origin).port);
    for (let i = 0; i < 8; i++) {
      const socket = connect(port, '127.0.0.1');
      const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
      expect(error.code).toBe('ECONNREFUSED');
    }
  });
});

describe('supportsReusePort', () => {
  it('is true from Node 22.12 and 23.1, false before (those ignore the option)', () => {
    expect(['20.19.0', '22.11.0', '23.0.0'].map((v) => supportsReusePort(v))).toEqual([false, false, false]);
    expect(['22.12.0', '23.1.0', '24.0.0', '26.3.1'].map((v) => supportsReusePort(v))).toEqual([true, true, true, true]);
  });
});

describe.runIf(linux && supportsReusePort())('a gateway started on a port another gateway listens on', () => {
  it('fails with EADDRINUSE instead of sharing the port (SO_REUSEPORT would let both bind)', async () => {
    const model = createScriptedModel([]);
    const first = await startGateway(model, { limits: { listenSockets: 4 } });
    const port = Number(new URL(first.origin).port);
    const second = createServer({ logger: pino({ level: 'silent' }), limits: { listenSockets: 4 } });
    try {
      await expect(second.listen({ port, host: '127.0.0.1' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // The first one still answers every connection.
      const statuses = await Promise.all(Array.from({ length: 16 }, () => fetch(`${first.origin}/healthz`, { headers: { connection: 'close' } }).then(async (res) => (await res.text(), res.status))));
      expect(statuses).toEqual(Array.from({ length: 16 }, () => 200));
    } finally {
      await first.server.close();
    }
    // And a gateway on a port that is free again binds it with its extra sockets.
    const third = createServer({ logger: pino({ level: 'silent' }), limits: { listenSockets: 4 } });
    await third.listen({ port, host: '127.0.0.1' });
    await third.close();
  });
});
