import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error.ts';
import type { HiddenToolTurn } from '../src/hidden-tool-turns.ts';
import type { GatewayState } from '../src/state/gateway-state.ts';
import { createRedisState, redactRedisUrl } from '../src/state/redis-state.ts';
import type { RedisStateOptions } from '../src/state/redis-state.ts';
import { GatewayError } from '../src/wire/gateway-error.ts';
import { startImpostorRedis } from './helpers/impostor-redis.ts';
import { startRedis } from './helpers/redis-server.ts';
import type { RedisProcess } from './helpers/redis-server.ts';

// Redis at its worst, against one real redis-server (and things on its port that are not Redis).
const started = await startRedis();
if ('skip' in started) console.warn(`[redis-failures.test] skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

interface LogLine {
  level: number;
  msg: string;
  problem?: string;
  redis?: string;
  reason?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return false;
};
const failureOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error);
const isStateUnavailable = (error: unknown): boolean => GatewayError.isInstance(error) && error.status === 503 && error.code === 'state_unavailable';

function turn(first: string): HiddenToolTurn {
  return {
    clientCallIds: [first],
    toolCalls: [
      { id: 'srv_1', name: 'get_current_time', arguments: {} },
      { id: first, name: 'client_fn', arguments: {} },
    ],
    results: [{ role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: '"12:00"' }],
  };
}
const askedWith = (id: string) => [{ role: 'assistant' as const, content: '', toolCalls: [{ id, name: 'client_fn', arguments: {} }] }];

let prefixes = 0;
const states: GatewayState[] = [];
/** A state with its own key prefix and a logger whose lines the test reads. */
function openState(options: Partial<RedisStateOptions> & { url: string }): { state: GatewayState; logs: LogLine[]; prefix: string } {
  const logs: LogLine[] = [];
  const prefix = `f${++prefixes}:`;
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as LogLine) });
  const state = createRedisState({ keyPrefix: prefix, logger, ...options });
  states.push(state);
  return { state, logs, prefix };
}
const aboutRedis = (logs: LogLine[], problem: string): LogLine[] => logs.filter((line) => line.problem === problem);

afterAll(async () => {
  for (const state of states) await state.close();
});

describe('createRedisState with a URL that does not parse', () => {
  it('throws a ConfigError that names the setting and does not repeat the URL (it may hold a password)', () => {
    let thrown: unknown;
    try {
      createRedisState({ url: 'redis://:hunter2-secret@[::1', logger: pino({ level: 'silent' }) });
    } catch (error) {
      thrown = error;
    }
    // Before: Node's "Invalid URL" TypeError, whose `input` (logged by pino's serializer) is the whole URL.
    expect(ConfigError.isInstance(thrown)).toBe(true);
    expect((thrown as ConfigError).setting).toBe('state.redis.url');
    expect(JSON.stringify(thrown)).not.toContain('hunter2');
    expect(String(thrown)).not.toContain('hunter2');
  });
});

describe('redactRedisUrl', () => {
  it('masks a password, a lone user part and query values, and keeps the rest', () => {
    expect(redactRedisUrl('redis://user:s3cret@10.0.0.5:6379/2')).toBe('redis://user:***@10.0.0.5:6379/2');
    expect(redactRedisUrl('redis://:s3cret@10.0.0.5:6379')).toBe('redis://:***@10.0.0.5:6379');
    // A password written where the user goes, as some tools do.
    expect(redactRedisUrl('redis://s3cret@10.0.0.5:6379')).toBe('redis://***@10.0.0.5:6379');
    // ioredis reads options from the query too: `?password=` is a password.
    const query = redactRedisUrl('rediss://10.0.0.5:6380/?password=s3cret&username=admin&db=3&family=4');
    expect(query).not.toContain('s3cret');
    expect(query).not.toContain('admin');
    expect(query).toContain('db=3');
    expect(query).toContain('family=4');
    expect(redactRedisUrl('redis://10.0.0.5:6379')).toBe('redis://10.0.0.5:6379');
    expect(redactRedisUrl('not a url s3cret')).not.toContain('s3cret');
  });
});

describe.runIf(redis !== undefined)('the Redis state against Redis at its worst (a real redis-server)', () => {
  const server = redis as RedisProcess;
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await server.stop();
  });
  const open = async (options: Partial<RedisStateOptions> = {}) => {
    const opened = openState({ url: server.url, ...options });
    expect(await opened.state.whenAvailable(10_000)).toBe(true);
    return opened;
  };

  it('paused (CLIENT PAUSE): a 503 within about the command timeout, not ready, then fails at once; back after the pause, with no slot held by an unanswered acquire', async () => {
    const { state, logs } = await open({ commandTimeoutMs: 500 });
    expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
    await admin.call('CLIENT', 'PAUSE', '4000', 'ALL');
    const startedAt = performance.now();
    const [rate, slot] = await Promise.all([failureOf(state.takeRate('k', 1000)), failureOf(state.acquireSlot('one', 1))]);
    // Well before the pause ends: the command timeout (500 ms), not Redis, decides.
    expect(performance.now() - startedAt).toBeLessThan(3000);
    expect(isStateUnavailable(rate)).toBe(true);
    expect(isStateUnavailable(slot)).toBe(true);
    expect(state.available).toBe(false);
    // While Redis does not answer, nothing is sent and nothing waits.
    const atOnce = performance.now();
    expect(isStateUnavailable(await failureOf(state.rememberTurn('k', turn('c1'))))).toBe(true);
    expect(performance.now() - atOnce).toBeLessThan(400);
    expect(aboutRedis(logs, 'timeout')).toHaveLength(1);
    expect(aboutRedis(logs, 'timeout')[0]!.msg).toMatch(/^Redis did not answer/);

    expect(await state.whenAvailable(15_000)).toBe(true);
    expect(logs.some((line) => line.msg.startsWith('Redis is reachable again'))).toBe(true);
    // The acquire that went unanswered may have run once Redis resumed; its slot is released, not held for a lease.
    expect(await until(async () => (await state.acquireSlot('one', 1)).acquired, 5000)).toBe(true);
  }, 30_000);

  it("paused while a slot is held: the slot's renewal notices the hang by itself, fails without a throw, and the slot is released after", async () => {
    // A lease of 1.2 s is renewed every second.
    const { state, logs } = await open({ commandTimeoutMs: 500, slotLeaseMs: 1200 });
    const held = await state.acquireSlot('renewed', 1);
    expect(held.acquired).toBe(true);
    await admin.call('CLIENT', 'PAUSE', '2500', 'ALL');
    // No request asks anything: the renewal alone finds Redis silent.
    expect(await until(() => !state.available, 5000)).toBe(true);
    expect(aboutRedis(logs, 'timeout')).toHaveLength(1);
    if (held.acquired) held.slot.release();
    expect(await state.whenAvailable(15_000)).toBe(true);
    expect(await until(async () => (await state.acquireSlot('renewed', 1)).acquired, 5000)).toBe(true);
  }, 30_000);

  it('busy with a long script (BUSY): a 503 at once and not ready until SCRIPT KILL; one log line however many requests', async () => {
    const { state, logs } = await open();
    await admin.config('SET', 'busy-reply-threshold', '100');
    const blocker = connect({ port: server.port, host: '127.0.0.1' });
    blocker.on('error', () => undefined);
    try {
      const lua = 'local i = 0 while true do i = i + 1 end';
      blocker.write(`*3\r\n$4\r\nEVAL\r\n$${lua.length}\r\n${lua}\r\n$1\r\n0\r\n`);
      await sleep(300);
      const failures = await Promise.all(Array.from({ length: 20 }, () => failureOf(state.takeRate('k', 1000))));
      expect(failures.every(isStateUnavailable)).toBe(true);
      expect(state.available).toBe(false);
      expect(aboutRedis(logs, 'busy')).toHaveLength(1);
      expect(aboutRedis(logs, 'busy')[0]!.msg).toContain('SCRIPT KILL');
      // Still busy a probe later: still not ready, and no more lines.
      await sleep(1200);
      expect(state.available).toBe(false);
      expect(aboutRedis(logs, 'busy')).toHaveLength(1);
      await admin.script('KILL');
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
    } finally {
      blocker.destroy();
      await admin.config('SET', 'busy-reply-threshold', '5000');
    }
  }, 30_000);

  it('out of memory (maxmemory, noeviction): rate limits and turns fail closed with 503s, one log line naming OOM, not ready until there is room', async () => {
    const { state, logs } = await open();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    try {
      const failures = await Promise.all(Array.from({ length: 50 }, () => failureOf(state.takeRate('k', 1000))));
      expect(failures.every(isStateUnavailable)).toBe(true);
      expect(isStateUnavailable(await failureOf(state.rememberTurn('k', turn('c1'))))).toBe(true);
      expect(state.available).toBe(false);
      const lines = logs.filter((line) => line.level >= 40);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ problem: 'out_of_memory', redis: server.url });
      expect(lines[0]!.msg).toMatch(/^Redis is out of memory/);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(await state.whenAvailable(10_000)).toBe(true);
    expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
  }, 30_000);

  it('a read-only replica (READONLY): 503s and not ready until it is a primary again; a new connection now and then, in case a failover moved the primary', async () => {
    const { state, logs } = await open({ probeIntervalMs: 100 });
    const connections = async (): Promise<number> => Number(/total_connections_received:(\d+)/.exec(await admin.info('stats'))?.[1]);
    // A primary nobody answers for: writes fail with READONLY, reads still work.
    await admin.call('REPLICAOF', '127.0.0.1', '1');
    try {
      const before = await connections();
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 1000)))).toBe(true);
      expect(state.available).toBe(false);
      expect(aboutRedis(logs, 'read_only')).toHaveLength(1);
      expect(aboutRedis(logs, 'read_only')[0]!.msg).toContain('primary');
      // Probes every 100 ms, a new connection every tenth refusal: at least one in 2.5 s, never a storm.
      expect(await until(async () => (await connections()) - before >= 2, 5000)).toBe(true);
      await sleep(1000);
      expect((await connections()) - before).toBeLessThan(10);
      expect(aboutRedis(logs, 'read_only')).toHaveLength(1);
    } finally {
      await admin.call('REPLICAOF', 'NO', 'ONE');
    }
    expect(await state.whenAvailable(10_000)).toBe(true);
    expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
  }, 30_000);

  it('too few replicas (NOREPLICAS, min-replicas-to-write): 503s, not ready and a line that names it, until writes succeed', async () => {
    const { state, logs } = await open({ probeIntervalMs: 100 });
    await admin.config('SET', 'min-replicas-to-write', '1');
    try {
      const failures = await Promise.all(Array.from({ length: 20 }, () => failureOf(state.takeRate('k', 1000))));
      expect(failures.every(isStateUnavailable)).toBe(true);
      // Before: a generic "answered a command with an error" warning, and ready all along.
      expect(state.available).toBe(false);
      expect(aboutRedis(logs, 'too_few_replicas')).toHaveLength(1);
      expect(aboutRedis(logs, 'too_few_replicas')[0]!.msg).toContain('min-replicas-to-write');
      await sleep(500);
      expect(state.available).toBe(false);
    } finally {
      await admin.config('SET', 'min-replicas-to-write', '0');
    }
    expect(await state.whenAvailable(10_000)).toBe(true);
    expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
  }, 30_000);

  it('a failed save (MISCONF, stop-writes-on-bgsave-error): 503s, not ready and a line that names it, until writes succeed', async () => {
    // A Redis whose snapshots cannot be written: its directory is removed once it runs, and
    // no file can be created in a removed directory, whoever runs it (root in a container too;
    // unlike a read-only or sysfs directory, which may be missing or writable there).
    const dir = await mkdtemp(join(tmpdir(), 'tw-misconf-'));
    const unsaving = await startRedis(['--dir', dir]);
    await rm(dir, { recursive: true, force: true });
    if ('skip' in unsaving) throw new Error(unsaving.skip);
    const unsavingAdmin = new Redis(unsaving.url);
    try {
      const { state, logs } = openState({ url: unsaving.url, probeIntervalMs: 100 });
      expect(await state.whenAvailable(10_000)).toBe(true);
      await unsavingAdmin.config('SET', 'save', '3600 1');
      await unsavingAdmin.config('SET', 'stop-writes-on-bgsave-error', 'yes');
      await unsavingAdmin.bgsave();
      expect(await until(async () => (await unsavingAdmin.info('persistence')).includes('rdb_last_bgsave_status:err'), 10_000)).toBe(true);
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 1000)))).toBe(true);
      expect(state.available).toBe(false);
      expect(aboutRedis(logs, 'cannot_persist')).toHaveLength(1);
      expect(aboutRedis(logs, 'cannot_persist')[0]!.msg).toContain('MISCONF');
      await unsavingAdmin.config('SET', 'stop-writes-on-bgsave-error', 'no');
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
    } finally {
      // With a save point set, a SIGTERMed Redis saves first, fails, and refuses to exit (the helper's SIGKILL 5 s later).
      await unsavingAdmin.config('SET', 'save', '').catch(() => undefined);
      unsavingAdmin.disconnect();
      await unsaving.stop();
    }
  }, 30_000);

  it('an ACL user without a command the scripts run (TIME): not ready and a no_permission line, not a generic error while ready', async () => {
    const user = `acl${prefixes + 1}`;
    const prefix = `f${prefixes + 1}:`;
    // Everything but TIME, which Redis refuses inside a script with an ERR, not NOPERM.
    await admin.call('ACL', 'SETUSER', user, 'on', '>acl-pass-1', `~${prefix}*`, '+info', '+eval', '+evalsha', '+mget', '+zrem', '+@string', '+@hash', '+@sortedset', '+del', '+exists', '+type', '+pexpire', '+pttl');
    try {
      const { state, logs } = openState({ url: server.url.replace('redis://', `redis://${user}:acl-pass-1@`), probeIntervalMs: 100 });
      expect(await state.whenAvailable(1500)).toBe(false);
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 1000)))).toBe(true);
      // The probe's refusal may take a moment on a loaded machine.
      expect(await until(() => aboutRedis(logs, 'no_permission').length > 0, 10_000)).toBe(true);
      expect(aboutRedis(logs, 'no_permission')).toHaveLength(1);
      expect(aboutRedis(logs, 'no_permission')[0]!.msg).toContain('TIME');
      expect(aboutRedis(logs, 'error')).toEqual([]);
      // Probes keep finding it: not ready back and forth.
      await sleep(500);
      expect(state.available).toBe(false);
      await admin.call('ACL', 'SETUSER', user, '+time');
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
    } finally {
      await admin.call('ACL', 'DELUSER', user);
    }
  }, 30_000);

  it.each(['-@hash', '-mget', '-del'])('an ACL user without a command only some requests need (%s): not ready and staying so under traffic, not ready one second in two', async (missing) => {
    const user = `acl${prefixes + 1}`;
    const prefix = `f${prefixes + 1}:`;
    await admin.call('ACL', 'SETUSER', user, 'on', '>acl-pass-2', `~${prefix}*`, '+info', '+eval', '+evalsha', '+mget', '+zrem', '+@string', '+@hash', '+@sortedset', '+del', '+exists', '+type', '+pexpire', '+pttl', '+time', missing);
    try {
      const { state, logs } = openState({ url: server.url.replace('redis://', `redis://${user}:acl-pass-2@`), probeIntervalMs: 50 });
      expect(await until(() => aboutRedis(logs, 'no_permission').length > 0, 10_000)).toBe(true);
      // Before: the probe passed without the command, each request that used it made the
      // state unavailable, and the next probe made it available again.
      let everAvailable = false;
      const deadline = Date.now() + 1500;
      while (Date.now() < deadline) {
        await Promise.all([failureOf(state.takeRate('k', 1000)), failureOf(state.restoreTurns('k', askedWith('c1'))), failureOf(state.rememberTurn('k', turn('c2')))]);
        everAvailable ||= state.available;
        await sleep(20);
      }
      expect(everAvailable).toBe(false);
      expect(logs.filter((line) => line.msg.startsWith('Redis is reachable again'))).toEqual([]);
      await admin.call('ACL', 'SETUSER', user, '+@all');
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
    } finally {
      await admin.call('ACL', 'DELUSER', user);
    }
  }, 30_000);

  it('recovers its scripts after SCRIPT FLUSH mid-traffic, without a failed request', async () => {
    const { state, logs } = await open();
    for (let round = 0; round < 30; round++) {
      const takes = Array.from({ length: 20 }, () => state.takeRate('k', 1_000_000));
      await admin.script('FLUSH');
      const remembered = state.rememberTurn('k', turn(`c${round}`));
      expect(await Promise.all(takes)).toEqual(Array.from({ length: 20 }, () => ({ allowed: true })));
      await remembered;
      expect(await state.restoreTurns('k', askedWith(`c${round}`))).toHaveLength(2);
    }
    expect(state.available).toBe(true);
    expect(logs).toEqual([]);
  });

  it('CLIENT KILL TYPE normal mid-traffic: the requests in flight get 503 or their answer, then it reconnects with nothing stuck', async () => {
    const { state } = await open();
    const killer = new Redis(server.url);
    try {
      const takes = Array.from({ length: 50 }, () => state.takeRate('k', 1_000_000).catch((error: unknown) => error));
      await killer.call('CLIENT', 'KILL', 'TYPE', 'normal');
      for (const outcome of await Promise.all(takes)) {
        if (GatewayError.isInstance(outcome)) expect(outcome.status).toBe(503);
        else expect(outcome).toEqual({ allowed: true });
      }
      // The lost connection is noticed, then replaced.
      expect(await until(() => !state.available, 10_000)).toBe(true);
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(await Promise.all(Array.from({ length: 10 }, () => state.takeRate('k', 1_000_000)))).toHaveLength(10);
      const slot = await state.acquireSlot('one', 1);
      expect(slot.acquired).toBe(true);
    } finally {
      killer.disconnect();
    }
  }, 30_000);

  it('a key of the wrong type at its key (WRONGTYPE), or a value it did not write: a 503 for that key only, or the value ignored', async () => {
    const { state, logs, prefix } = await open();
    await admin.lpush(`${prefix}rate:taken`, 'someone else');
    expect(isStateUnavailable(await failureOf(state.takeRate('taken', 1000)))).toBe(true);
    // One key, not Redis: others still work and readiness stays.
    expect(state.available).toBe(true);
    expect(await state.takeRate('other', 1000)).toEqual({ allowed: true });
    expect(aboutRedis(logs, 'wrong_type')).toHaveLength(1);
    expect(aboutRedis(logs, 'wrong_type')[0]!.msg).toContain('keyPrefix');

    for (const [id, value] of [['c-text', 'not json'], ['c-number', '42'], ['c-shape', '{"clientCallIds":["c-shape"],"toolCalls":"x","results":[]}']] as const) {
      await admin.set(`${prefix}{turns}:k\n${id}`, value);
      const asked = askedWith(id);
      expect(await state.restoreTurns('k', asked)).toBe(asked);
    }
    expect(aboutRedis(logs, 'foreign_value')).toHaveLength(1);
    expect(state.available).toBe(true);
  });

  it('a restart that loses all data: limits start afresh and a slot held across it releases without a throw', async () => {
    const { state } = await open();
    expect((await Promise.all([state.takeRate('k', 2), state.takeRate('k', 2), state.takeRate('k', 2)])).map((t) => t.allowed)).toEqual([true, true, false]);
    const held = await state.acquireSlot('one', 1);
    expect(held.acquired).toBe(true);
    await server.stop();
    await server.start();
    expect(await state.whenAvailable(15_000)).toBe(true);
    expect(await state.takeRate('k', 2)).toEqual({ allowed: true });
    if (held.acquired) expect(() => held.slot.release()).not.toThrow();
    expect((await state.acquireSlot('one', 1)).acquired).toBe(true);
    admin.disconnect();
    admin = new Redis(server.url);
  }, 30_000);
});

describe.runIf(redis !== undefined)('the Redis state against a Redis asleep (DEBUG SLEEP)', () => {
  let server: RedisProcess | undefined;
  beforeAll(async () => {
    // Debug commands are off by default since Redis 7.
    const debuggable = await startRedis(['--enable-debug-command', 'yes']);
    if ('skip' in debuggable) console.warn(`[redis-failures.test] DEBUG SLEEP case skipped: ${debuggable.skip}`);
    else server = debuggable;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a server that does nothing at all for 3 s: a 503 within about the command timeout, and no slot left held after', async (context) => {
    if (server === undefined) return context.skip();
    const { state, logs } = openState({ url: server.url, commandTimeoutMs: 500 });
    expect(await state.whenAvailable(10_000)).toBe(true);
    const held = await state.acquireSlot('one', 1);
    const sleeper = new Redis(server.url);
    try {
      void sleeper.call('DEBUG', 'SLEEP', '3').catch(() => undefined);
      await sleep(50);
      const startedAt = performance.now();
      expect(isStateUnavailable(await failureOf(state.acquireSlot('one', 2)))).toBe(true);
      expect(performance.now() - startedAt).toBeLessThan(2500);
      expect(state.available).toBe(false);
      // Released while Redis sleeps: sent once it is back.
      if (held.acquired) held.slot.release();
      expect(await state.whenAvailable(15_000)).toBe(true);
      expect(await until(async () => (await state.acquireSlot('one', 1)).acquired, 5000)).toBe(true);
      expect(aboutRedis(logs, 'timeout')).toHaveLength(1);
    } finally {
      sleeper.disconnect();
    }
  }, 30_000);
});

describe.runIf(redis !== undefined)('the Redis state against a Redis with a password', () => {
  const password = 's3cret-pass-4711';
  let server: RedisProcess | undefined;
  beforeAll(async () => {
    const withPassword = await startRedis(['--requirepass', password]);
    if (!('skip' in withPassword)) server = withPassword;
  });
  afterAll(async () => {
    await server?.stop();
  });
  const withCredentials = (credentials: string): string => (server as RedisProcess).url.replace('redis://', `redis://${credentials}@`);
  const connectionsSoFar = async (): Promise<number> => {
    const inspector = new Redis(withCredentials(`:${password}`));
    const info = await inspector.info('stats');
    inspector.disconnect();
    const line = info.split('\r\n').find((l) => l.startsWith('total_connections_received:')) ?? '';
    return Number(line.slice('total_connections_received:'.length));
  };

  it.each([
    ['without a password', (url: string) => url, 'auth_required', 'NOAUTH'],
    ['with a wrong password', (url: string) => url.replace('redis://', 'redis://:wrong-pass-0815@'), 'auth_failed', 'WRONGPASS'],
    ['with a wrong password in the query', (url: string) => `${url}/?password=wrong-pass-0815`, 'auth_failed', 'WRONGPASS'],
  ])('%s: not ready, 503s, one clear log line without the password, and no reconnect storm', async (_, url, problem, code) => {
    const before = await connectionsSoFar();
    const { state, logs } = openState({ url: url((server as RedisProcess).url) });
    expect(await state.whenAvailable(1500)).toBe(false);
    expect(isStateUnavailable(await failureOf(state.takeRate('k', 1000)))).toBe(true);
    expect(aboutRedis(logs, problem)).toHaveLength(1);
    expect(aboutRedis(logs, problem)[0]!.msg).toContain(code);
    expect(aboutRedis(logs, problem)[0]!.msg).toContain('TOOLWIRE_REDIS_URL');
    // At most one line per problem, whatever the reconnects.
    expect(logs.length).toBeLessThanOrEqual(2);
    const text = JSON.stringify(logs);
    expect(text).not.toContain(password);
    expect(text).not.toContain('wrong-pass-0815');
    // Reconnects back off (to one every 2 s): a handful in these 1.5 s, not hundreds.
    expect((await connectionsSoFar()) - before).toBeLessThan(40);
    await state.close();
  }, 20_000);

  it('with the right password: available', async () => {
    const { state } = openState({ url: withCredentials(`:${password}`) });
    expect(await state.whenAvailable(10_000)).toBe(true);
    expect(await state.takeRate('k', 1000)).toEqual({ allowed: true });
  });
});

describe('the Redis state against servers that are not Redis', () => {
  /** A TCP or TLS-expecting server on 127.0.0.1, closed after `run`. */
  const withServer = async (server: NetServer | HttpServer, run: (port: number) => Promise<void>): Promise<void> => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await run((server.address() as AddressInfo).port);
    } finally {
      server.close();
    }
  };

  it('says so when the other side closes every connection before answering (a TLS-only port reached with redis://), instead of nothing', async () => {
    // What a TLS port does with plain text: it reads it, and hangs up without a byte.
    const hangUp = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end());
    });
    await withServer(hangUp, async (port) => {
      const { state, logs } = openState({ url: `redis://:p4ss-w0rd@127.0.0.1:${port}` });
      expect(await state.whenAvailable(1500)).toBe(false);
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 10)))).toBe(true);
      expect(await until(() => aboutRedis(logs, 'unreachable').length > 0, 10_000)).toBe(true);
      const lines = aboutRedis(logs, 'unreachable');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.reason).toContain('rediss://');
      expect(JSON.stringify(logs)).not.toContain('p4ss-w0rd');
      await state.close();
    });
  }, 20_000);

  it('names TLS when the handshake of a rediss:// URL fails (not "answered a command with an error")', async () => {
    // An HTTP server answers a TLS ClientHello with plain text: OpenSSL's "wrong version number".
    await withServer(createHttpServer((_req, res) => res.end('no')), async (port) => {
      const { state, logs } = openState({ url: `rediss://127.0.0.1:${port}` });
      expect(await state.whenAvailable(1500)).toBe(false);
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 10)))).toBe(true);
      expect(await until(() => aboutRedis(logs, 'tls_failed').length > 0, 10_000)).toBe(true);
      expect(aboutRedis(logs, 'tls_failed')).toHaveLength(1);
      expect(aboutRedis(logs, 'tls_failed')[0]!.level).toBe(50);
      expect(aboutRedis(logs, 'error')).toEqual([]);
      await state.close();
    });
  }, 20_000);

  it('drops a connection whose reply outgrows maxReplyBytes (an endless bulk string, flooded), instead of buffering it', async () => {
    const impostor = await startImpostorRedis('flood-bulk');
    try {
      const { state, logs } = openState({ url: impostor.url, maxReplyBytes: 1024 * 1024 });
      expect(await until(() => impostor.connections >= 2, 15_000)).toBe(true);
      // 1 MiB allowed, plus what sits in socket buffers: far below the ~1 GB announced.
      expect(impostor.maxBytesWrittenToOne).toBeLessThan(64 * 1024 * 1024);
      expect(state.available).toBe(false);
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 10)))).toBe(true);
      expect(aboutRedis(logs, 'not_redis')).toHaveLength(1);
    } finally {
      await impostor.close();
    }
  }, 30_000);

  it("names an ACL refusal in Redis 7.2's and Valkey's words, and asks again after any failed probe until one succeeds on the same connection", async () => {
    const impostor = await startImpostorRedis('scripted');
    // The probe's script answered as a Redis 7.2+ (or Valkey) answers a user without TIME,
    // then with an error reply nobody classifies, then as it should: the connection stays open.
    let probeReply = "-ERR ACL failure in script: User tw has no permissions to run the 'time' command script: 9c1f, on @user_script:1.\r\n";
    impostor.setMode('scripted', (command) => (command.some((arg) => arg.includes('{probe}')) ? probeReply : ':1\r\n'));
    try {
      const { state, logs } = openState({ url: impostor.url, probeIntervalMs: 50 });
      // Before: a generic `error` warning, and no probe after it.
      expect(await until(() => aboutRedis(logs, 'no_permission').length === 1, 10_000)).toBe(true);
      expect(aboutRedis(logs, 'no_permission')[0]!.level).toBe(50);
      expect(aboutRedis(logs, 'error')).toEqual([]);
      expect(state.available).toBe(false);
      probeReply = '-ERR some error this gateway has never heard of\r\n';
      expect(await until(() => aboutRedis(logs, 'error').length === 1, 10_000)).toBe(true);
      const connections = impostor.connections;
      probeReply = ':1\r\n';
      // Before: a probe that failed with a non-outage error was never repeated.
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(impostor.connections).toBe(connections);
    } finally {
      await impostor.close();
    }
  }, 30_000);

  it('answers 503 (not a crash, not a wrong decision) when a server that passes for Redis answers the scripts with the wrong shape', async () => {
    const impostor = await startImpostorRedis('scripted');
    // The probe gets what it expects; every other script an integer, MGET an integer.
    impostor.setMode('scripted', (command) => (command.some((arg) => arg.includes('{probe}')) ? ':1\r\n' : ':5\r\n'));
    try {
      const { state, logs } = openState({ url: impostor.url });
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(isStateUnavailable(await failureOf(state.takeRate('k', 10)))).toBe(true);
      expect(aboutRedis(logs, 'not_redis')).toHaveLength(1);
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(isStateUnavailable(await failureOf(state.restoreTurns('k', askedWith('c1'))))).toBe(true);
      expect(await state.whenAvailable(10_000)).toBe(true);
      expect(isStateUnavailable(await failureOf(state.acquireSlot('k', 1)))).toBe(true);
    } finally {
      await impostor.close();
    }
  }, 30_000);
});
