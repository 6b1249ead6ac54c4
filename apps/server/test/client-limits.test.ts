import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import { startGatewayBin } from './helpers/gateway-bin.ts';
import type { GatewayBin } from './helpers/gateway-bin.ts';

// Clients that hold connections or memory without finishing their request: raw sockets
// against the real bin, whose resident memory is read from /proc.
const KEY = 'sk-client-limits';
let gateway: GatewayBin;
let port: number;

beforeAll(async () => {
  gateway = await startGatewayBin({
    config: {
      keys: [{ id: 'tenant', keyHash: hashApiKey(KEY) }],
      providers: { openai: { baseURL: 'http://127.0.0.1:9/v1' } },
      limits: { requestTimeoutMs: 1500, headersTimeoutMs: 1000, maxPendingBodiesPerKey: 3 },
      logLevel: 'info',
    },
    env: { OPENAI_API_KEY: 'sk-upstream' },
  });
  port = Number(new URL(gateway.origin).port);
}, 30_000);
afterAll(() => gateway.stop());

interface RawExchange {
  socket: Socket;
  /** Everything the gateway sent so far. */
  readonly received: string;
  /** Resolves when the gateway closed the connection, with the ms since the request began. */
  closed: Promise<number>;
}

/** Opens a connection and writes `head` (request line and headers, unfinished if the caller says so). */
function open(head: string): RawExchange {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  // The gateway may close while the client still writes: that is the point.
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  socket.write(head);
  return {
    socket,
    get received() {
      return received;
    },
    closed,
  };
}

const head = (options: { key?: string; length: number }): string =>
  'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  (options.key === undefined ? '' : `Authorization: Bearer ${options.key}\r\n`) +
  `Content-Length: ${options.length}\r\n\r\n`;

/**
 * Writes `text` one byte per `everyMs` until the socket closes or the text ends (with
 * `stopOnResponse`, also once the gateway answered, as RFC 9112 asks of a client that gets
 * an early final response: it stops sending the body). Returns how many bytes were written.
 */
function trickle(exchange: RawExchange, text: string, everyMs: number, options: { stopOnResponse?: boolean } = {}): () => number {
  let i = 0;
  const timer = setInterval(() => {
    if (exchange.socket.destroyed || exchange.socket.writableEnded || i >= text.length || (options.stopOnResponse === true && exchange.received !== '')) {
      clearInterval(timer);
      return;
    }
    exchange.socket.write(text[i++] ?? '');
  }, everyMs);
  void exchange.closed.then(() => clearInterval(timer));
  return () => i;
}

const body = JSON.stringify({ model: 'openai/x', messages: [{ role: 'user', content: 'hello there, slowly' }] });

describe('a client without a valid key', () => {
  for (const key of [undefined, 'sk-wrong']) {
    it(`gets a 401 before it sent its body, and the connection closes (${key === undefined ? 'no key' : 'a wrong key'})`, async () => {
      const exchange = open(head({ ...(key === undefined ? {} : { key }), length: body.length }));
      // The client stops sending once it has the answer: a byte written into the connection
      // the gateway is closing would come back as a reset, which (on a loaded machine, where
      // the write can run before the read) destroys the client's socket before it read the 401.
      const written = trickle(exchange, body, 50, { stopOnResponse: true });
      await exchange.closed;
      expect(exchange.received).toMatch(/^HTTP\/1\.1 401 /);
      expect(exchange.received).toContain('"code":"invalid_api_key"');
      // Before the body was sent: the answer and the close came while most of it was still
      // unsent (50 ms a byte), whatever the machine's load.
      expect(written()).toBeLessThan(body.length);
    });
  }

  it('cannot grow the gateway with 40 unfinished 4 MiB bodies', async () => {
    const before = await gateway.rss();
    const megabyte = Buffer.alloc(1024 * 1024, 0x20);
    const exchanges = Array.from({ length: 40 }, () => {
      const exchange = open(head({ length: 4 * 1024 * 1024 }));
      // Three of the four announced MiB, then nothing.
      for (let i = 0; i < 3; i++) exchange.socket.write(megabyte);
      return exchange;
    });
    const times = await Promise.all(exchanges.map((e) => e.closed));
    // A 401, or nothing when the close with unread bytes became a TCP reset before the
    // client read it; never the 408 of a body the gateway waited for.
    for (const exchange of exchanges) expect(exchange.received === '' || /^HTTP\/1\.1 401 /.test(exchange.received)).toBe(true);
    expect(exchanges.some((e) => e.received.startsWith('HTTP/1.1 401 '))).toBe(true);
    expect(Math.max(...times)).toBeLessThan(5000);
    const after = await gateway.rss();
    // Buffering the bodies would add 120 MiB; the gateway read none of them.
    expect(after - before).toBeLessThan(40 * 1024 * 1024);
  });

  it('cannot hold a connection by trickling its headers', async () => {
    const exchange = open('POST /v1/chat/completions HTTP/1.1\r\n');
    trickle(exchange, 'Host: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200), 20);
    const ms = await exchange.closed;
    // headersTimeoutMs is 1000; Node checks every 250 ms.
    expect(ms).toBeLessThan(3000);
    expect(exchange.received === '' || /^HTTP\/1\.1 408 /.test(exchange.received)).toBe(true);
  });
});

describe('a client with a valid key', () => {
  it('is cut off when it trickles its body past the request timeout', async () => {
    const exchange = open(head({ key: KEY, length: body.length }));
    trickle(exchange, body, 50);
    const ms = await exchange.closed;
    expect(ms).toBeLessThan(3500);
    expect(ms).toBeGreaterThan(1000);
    expect(exchange.received === '' || /^HTTP\/1\.1 408 /.test(exchange.received)).toBe(true);
  });

  it('cannot have more than maxPendingBodiesPerKey bodies in flight: the next gets a 429 at once', async () => {
    const slow = Array.from({ length: 3 }, () => {
      const exchange = open(head({ key: KEY, length: body.length }));
      trickle(exchange, body, 100);
      return exchange;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = open(head({ key: KEY, length: body.length }));
    trickle(extra, body, 100);
    expect(await extra.closed).toBeLessThan(1000);
    expect(extra.received).toMatch(/^HTTP\/1\.1 429 /);
    expect(extra.received).toContain('"code":"too_many_pending_requests"');
    // Once the slow ones are cut, the key may send again.
    await Promise.all(slow.map((e) => e.closed));
    const res = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nope/x', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(404);
  });

  it('is served normally, and finished bodies no longer count against it', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${gateway.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'nope/x', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(404);
    }
    expect(gateway.child.exitCode).toBeNull();
  });
});
