import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.ts';
import { startGatewayBin } from './helpers/gateway-bin.ts';
import type { GatewayBin } from './helpers/gateway-bin.ts';
import { startImpostorRedis } from './helpers/impostor-redis.ts';
import type { ImpostorMode, ImpostorRedis } from './helpers/impostor-redis.ts';
import { OPENAI_MODEL, startPacedUpstream } from './helpers/paced-upstream.ts';
import type { PacedUpstream } from './helpers/paced-upstream.ts';
import { startRedis } from './helpers/redis-server.ts';
import type { RedisProcess } from './helpers/redis-server.ts';

// The gateway process (the real bin, over HTTP) on a Redis that stops answering, and on
// things that sit on Redis's port without being Redis.
const started = await startRedis();
if ('skip' in started) console.warn(`[redis-outages.test] skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

const MODEL = `openai/${OPENAI_MODEL}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
};

function chat(gateway: GatewayBin, key: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}
const readyStatus = async (gateway: GatewayBin): Promise<number> => (await fetch(`${gateway.origin}/readyz`)).status;
/** The gateway's log lines about Redis (the state's own, each naming Redis). */
const redisLines = (gateway: GatewayBin): string[] => gateway.logs.map((line) => line.msg ?? '').filter((msg) => msg.startsWith('Redis ') || msg.startsWith('What answers at the Redis URL'));

describe.runIf(redis !== undefined)('a gateway process on a Redis that stops answering (CLIENT PAUSE)', () => {
  const server = redis as RedisProcess;
  let upstream: PacedUpstream;
  let gateway: GatewayBin;
  let admin: Redis;

  beforeAll(async () => {
    upstream = await startPacedUpstream({ pauseMs: 20 });
    gateway = await startGatewayBin({
      config: {
        keys: [
          { id: 'one-at-a-time', keyHash: hashApiKey('sk-one'), maxConcurrentRequests: 1 },
          { id: 'metered', keyHash: hashApiKey('sk-metered'), requestsPerMinute: 100_000 },
        ],
        providers: { openai: { baseURL: `${upstream.url}/v1` } },
        tools: { builtins: ['get_current_time'] },
        state: { redis: { url: server.url, commandTimeoutMs: 500 } },
        logLevel: 'info',
      },
      env: { OPENAI_API_KEY: 'sk-upstream' },
    });
    admin = new Redis(server.url);
    expect(await until(async () => (await readyStatus(gateway)) === 200, 20_000)).toBe(true);
  }, 60_000);

  afterAll(async () => {
    admin?.disconnect();
    await gateway?.stop();
    await upstream?.close();
    await server.stop();
  }, 30_000);

  it('answers 503 within about the command timeout, turns not ready, lets a stream in flight finish, and afterwards serves with no slot left held', async () => {
    // A mixed turn streamed slowly: the server tool runs, and the turn is written to Redis just before the end.
    upstream.script = (request) =>
      request.toolResults.length > 0 ? { text: 'done' } : { toolCalls: [{ name: 'get_current_time', arguments: {} }, { name: 'client_fn', arguments: { x: 1 } }], pauseMs: 100, midPauseMs: 1500 };
    const stream = chat(gateway, 'sk-one', {
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_current_time' } }, { type: 'function', function: { name: 'client_fn', parameters: { type: 'object', properties: { x: { type: 'number' } } } } }],
    });
    expect(await until(() => (upstream.requests[0]?.sentAt.length ?? 0) > 0, 10_000)).toBe(true);

    await admin.call('CLIENT', 'PAUSE', '4000', 'ALL');
    const pausedAt = performance.now();
    // The key's one slot is the stream's; asking for another needs Redis, which does not answer.
    const refused = await chat(gateway, 'sk-one', {});
    expect(performance.now() - pausedAt).toBeLessThan(3000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('x-should-retry')).toBe('true');
    expect(await refused.json()).toMatchObject({ error: { type: 'server_error', code: 'state_unavailable' } });
    expect(await readyStatus(gateway)).toBe(503);
    // Another key's rate limit: refused as well (at once: no command is sent while Redis is out).
    expect((await chat(gateway, 'sk-metered', {})).status).toBe(503);

    // The stream in flight ends properly: its turn could not be kept, which is logged, not fatal.
    const streamed = await stream;
    expect(streamed.status).toBe(200);
    const body = await streamed.text();
    expect(body).toContain('client_fn');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await until(() => gateway.logs.some((line) => line.msg === 'could not keep the hidden half of a mixed turn'), 5000)).toBe(true);

    expect(await until(async () => (await readyStatus(gateway)) === 200, 20_000)).toBe(true);
    // The stream's slot and the one whose acquire went unanswered are both free again (not held for a lease).
    const after = await chat(gateway, 'sk-one', {});
    expect(after.status).toBe(200);
    expect((await chat(gateway, 'sk-metered', {})).status).toBe(200);
    const lines = redisLines(gateway);
    expect(lines.filter((msg) => msg.startsWith('Redis did not answer'))).toHaveLength(1);
    expect(lines.some((msg) => msg.startsWith('Redis is reachable again'))).toBe(true);
    expect(gateway.child.exitCode).toBeNull();
  }, 60_000);
});

describe('a gateway process with something on the Redis port that is not Redis', () => {
  let impostor: ImpostorRedis;
  let http: Server;
  let httpPort: number;
  let upstream: PacedUpstream;
  let gateway: GatewayBin;
  let other: GatewayBin | undefined;

  beforeAll(async () => {
    impostor = await startImpostorRedis('garbage');
    http = createServer((_req, res) => res.writeHead(400, { 'content-type': 'text/html' }).end('<html>Bad Request</html>'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    httpPort = typeof address === 'object' && address !== null ? address.port : 0;
    upstream = await startPacedUpstream();
    gateway = await startGatewayBin({
      config: {
        keys: [
          { id: 'metered', keyHash: hashApiKey('sk-metered'), requestsPerMinute: 100_000 },
          { id: 'open', keyHash: hashApiKey('sk-open') },
        ],
        providers: { openai: { baseURL: `${upstream.url}/v1` } },
        state: { redis: { url: impostor.url, commandTimeoutMs: 500 } },
        logLevel: 'info',
      },
      env: { OPENAI_API_KEY: 'sk-upstream' },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await other?.stop();
    await upstream?.close();
    await impostor?.close();
    await new Promise((resolve) => http?.close(resolve));
  }, 30_000);

  const expectFastRefusals = async (target: GatewayBin): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      const startedAt = performance.now();
      const res = await chat(target, 'sk-metered', {});
      expect(performance.now() - startedAt).toBeLessThan(3000);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'state_unavailable' } });
    }
    expect(await readyStatus(target)).toBe(503);
    expect((await fetch(`${target.origin}/livez`)).status).toBe(200);
    // A request that needs nothing from the state is served.
    expect((await chat(target, 'sk-open', {})).status).toBe(200);
  };

  it.each<ImpostorMode>(['garbage', 'silent', 'trickle', 'reset', 'endless-bulk'])('%s: 503s at once, not ready, alive', async (mode) => {
    const before = impostor.connections;
    impostor.setMode(mode);
    // The gateway meets the new behaviour on its next connection (it reconnects on its own).
    expect(await until(() => impostor.connections > before, 15_000)).toBe(true);
    await sleep(200);
    await expectFastRefusals(gateway);
    expect(gateway.child.exitCode).toBeNull();
  }, 30_000);

  it('logs a bounded number of lines through all of that, each naming Redis', () => {
    const lines = redisLines(gateway);
    expect(lines.length).toBeGreaterThan(0);
    // One line per kind of problem, at most every 30 s: a handful, whatever the reconnects and requests.
    expect(lines.length).toBeLessThanOrEqual(8);
    // The 503s themselves are single info lines, not an error with a stack each.
    expect(gateway.logs.filter((line) => line.msg === 'request failed')).toEqual([]);
    expect(gateway.logs.filter((line) => line.msg === 'request refused').length).toBeGreaterThanOrEqual(25);
    expect(gateway.child.exitCode).toBeNull();
  });

  it('an HTTP server on the port: 503s at once, not ready, alive', async () => {
    other = await startGatewayBin({
      config: {
        keys: [
          { id: 'metered', keyHash: hashApiKey('sk-metered'), requestsPerMinute: 100_000 },
          { id: 'open', keyHash: hashApiKey('sk-open') },
        ],
        providers: { openai: { baseURL: `${upstream.url}/v1` } },
        state: { redis: { url: `redis://127.0.0.1:${httpPort}`, commandTimeoutMs: 500 } },
        logLevel: 'info',
      },
      env: { OPENAI_API_KEY: 'sk-upstream' },
    });
    await expectFastRefusals(other);
    // The gateway starts after at most 2 s without its state, and the refusals need nothing
    // from the port, so they can all be over before a connection got as far as the HTTP
    // server's 400 (on a loaded machine the first attempts can end in a reset or a timeout,
    // logged as such): the line is waited for while the gateway reconnects, not expected at once.
    const target = other;
    expect(await until(() => redisLines(target).some((msg) => msg.startsWith("What answers at the Redis URL does not speak Redis's protocol")), 15_000)).toBe(true);
    expect(other.child.exitCode).toBeNull();
  }, 30_000);
});
