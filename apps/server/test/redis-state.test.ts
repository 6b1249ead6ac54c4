import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenTurnText } from '../src/hidden-tool-turns.ts';
import type { HiddenToolTurn } from '../src/hidden-tool-turns.ts';
import { createRedisState } from '../src/state/redis-state.ts';
import type { GatewayState } from '../src/state/gateway-state.ts';
import { GatewayError } from '../src/wire/gateway-error.ts';
import { startRedis } from './helpers/redis-server.ts';
import type { RedisProcess } from './helpers/redis-server.ts';

const started = await startRedis();
if ('skip' in started) console.warn(`[redis-state.test] skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

const quiet = pino({ level: 'silent' });
let prefixCount = 0;

function turn(first: string, serverResult: string): HiddenToolTurn {
  return {
    clientCallIds: [first],
    toolCalls: [
      { id: 'srv_1', name: 'get_current_time', arguments: {} },
      { id: first, name: 'client_fn', arguments: { x: 1 } },
    ],
    results: [{ role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: serverResult }],
  };
}

describe.runIf(redis !== undefined)('the Redis state (a real redis-server)', () => {
  const server = redis as RedisProcess;
  let inspector: Redis;
  const states: GatewayState[] = [];
  const open = async (options: Partial<Parameters<typeof createRedisState>[0]> = {}): Promise<GatewayState> => {
    const state = createRedisState({ url: server.url, logger: quiet, keyPrefix: `t${prefixCount}:`, ...options });
    states.push(state);
    expect(await state.whenAvailable(10_000)).toBe(true);
    return state;
  };

  beforeAll(() => {
    inspector = new Redis(server.url, { lazyConnect: false });
  });
  afterAll(async () => {
    for (const state of states) await state.close();
    inspector.disconnect();
    await server.stop();
  });

  it('holds one rate limit across instances: concurrent takes never exceed the bucket', async () => {
    prefixCount++;
    const [a, b, c] = [await open(), await open(), await open()];
    const takes = await Promise.all(Array.from({ length: 30 }, (_, i) => [a, b, c][i % 3]!.takeRate('key-1', 10)));
    expect(takes.filter((t) => t.allowed)).toHaveLength(10);
    const refused = takes.find((t) => !t.allowed);
    expect(refused).toMatchObject({ allowed: false });
    // 10 per minute: the next token is ~6 s away.
    expect(refused !== undefined && !refused.allowed ? refused.retryAfterSeconds : 0).toBeGreaterThanOrEqual(5);
    // Another key has its own bucket.
    expect(await b.takeRate('key-2', 10)).toEqual({ allowed: true });
  });

  it('shares concurrency slots across instances and frees them on release', async () => {
    prefixCount++;
    const [a, b] = [await open(), await open()];
    const first = await a.acquireSlot('k', 2);
    const second = await b.acquireSlot('k', 2);
    expect(first.acquired && second.acquired).toBe(true);
    expect((await a.acquireSlot('k', 2)).acquired).toBe(false);
    if (first.acquired) first.slot.release();
    // The release is sent without waiting; give it a moment on a loaded machine.
    let third = await b.acquireSlot('k', 2);
    for (let i = 0; i < 50 && !third.acquired; i++) {
      await new Promise((r) => setTimeout(r, 20));
      third = await b.acquireSlot('k', 2);
    }
    expect(third.acquired).toBe(true);
  });

  it('restores a turn remembered by another instance, for the same key only', async () => {
    prefixCount++;
    const [a, b] = [await open(), await open()];
    await a.rememberTurn('key-a', turn('call_c1', '"12:00"'));
    const sent = [
      { role: 'user' as const, content: 'time and x?' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_c1', name: 'client_fn', arguments: { x: 1 } }] },
      { role: 'tool' as const, toolCallId: 'call_c1', content: 'x done' },
    ];
    const restored = await b.restoreTurns('key-a', sent);
    expect(restored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(restored[1]).toMatchObject({ toolCalls: [{ id: 'srv_1' }, { id: 'call_c1' }] });
    expect(restored[2]).toMatchObject({ toolCallId: 'srv_1', content: '"12:00"' });
    // Another key never sees it; a conversation without calls needs no lookup.
    expect(await b.restoreTurns('key-b', sent)).toBe(sent);
    const plain = [{ role: 'user' as const, content: 'hi' }];
    expect(await b.restoreTurns('key-a', plain)).toBe(plain);
  });

  it('puts a TTL on every key it writes', async () => {
    prefixCount++;
    const prefix = `t${prefixCount}:`;
    const state = await open();
    await state.takeRate('k', 60);
    const slot = await state.acquireSlot('k', 3);
    await state.rememberTurn('k', turn('call_ttl', 'x'));
    const keys = await inspector.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThanOrEqual(6);
    for (const key of keys) expect(await inspector.pttl(key), key).toBeGreaterThan(0);
    if (slot.acquired) slot.slot.release();
  });

  it('keeps the turn store within maxEntries and the total size, least recently used first', async () => {
    prefixCount++;
    const cap = 1000;
    const bytesOf = (t: HiddenToolTurn): number => Buffer.byteLength(hiddenTurnText(t) ?? '', 'utf8');
    const state = await open({ turns: { maxEntries: 2, maxTextLength: cap } });
    const ask = (id: string) => [{ role: 'assistant' as const, content: '', toolCalls: [{ id, name: 'client_fn', arguments: { x: 1 } }] }];
    await state.rememberTurn('k', turn('c1', 'a'));
    await state.rememberTurn('k', turn('c2', 'b'));
    await new Promise((r) => setTimeout(r, 5));
    // Using c1 makes c2 the least recently used.
    expect(await state.restoreTurns('k', ask('c1'))).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 20));
    await state.rememberTurn('k', turn('c3', 'c'));
    expect(await state.restoreTurns('k', ask('c2'))).toHaveLength(1);
    expect(await state.restoreTurns('k', ask('c1'))).toHaveLength(2);
    expect(await state.restoreTurns('k', ask('c3'))).toHaveLength(2);
    // A turn larger than the total cap is not kept; one that fills it pushes the others out.
    await state.rememberTurn('k', turn('big', 'x'.repeat(cap)));
    expect(await state.restoreTurns('k', ask('big'))).toHaveLength(1);
    const full = turn('full', 'x'.repeat(cap - bytesOf(turn('full', ''))));
    expect(bytesOf(full)).toBe(cap);
    await state.rememberTurn('k', full);
    expect(await state.restoreTurns('k', ask('full'))).toHaveLength(2);
    expect(await state.restoreTurns('k', ask('c3'))).toHaveLength(1);
  });

  it.each(['index', 'sizes', 'total', 'index+sizes'])('keeps storing turns within its limits after Redis evicts its %s key (maxmemory with allkeys-*)', async (victims) => {
    prefixCount++;
    const prefix = `t${prefixCount}:`;
    const cap = 10_000;
    const state = await open({ turns: { maxEntries: 100, maxTextLength: cap } });
    const ask = (id: string) => [{ role: 'assistant' as const, content: '', toolCalls: [{ id, name: 'client_fn', arguments: { x: 1 } }] }];
    for (let i = 0; i < 9; i++) await state.rememberTurn('k', turn(`old${i}`, 'x'.repeat(1000)));
    // What an eviction does to one key; the others stay.
    for (const victim of victims.split('+')) await inspector.del(`${prefix}{turns}:${victim}`);
    for (let i = 0; i < 20; i++) await state.rememberTurn('k', turn(`new${i}`, 'y'.repeat(1000)));
    // The newest turns are kept (before, none was: the total still counted the lost turns, or grew past the cap).
    for (let i = 12; i < 20; i++) expect(await state.restoreTurns('k', ask(`new${i}`)), `new${i}`).toHaveLength(2);
    const indexed = await inspector.zrange(`${prefix}{turns}:index`, '0', '-1');
    let bytes = 0;
    for (const key of indexed) bytes += await inspector.strlen(key);
    expect(Number(await inspector.get(`${prefix}{turns}:total`))).toBe(bytes);
    expect(bytes).toBeLessThanOrEqual(cap);
    expect(await inspector.hlen(`${prefix}{turns}:sizes`)).toBe(indexed.length);
  });

  it('looks up a long conversation in bounded slices: each id once, no over-long ids, a mixed turn far back still found', async () => {
    prefixCount++;
    const prefix = `t${prefixCount}:`;
    const state = await open({ turns: { maxEntries: 300 } });
    const ask = (id: string) => ({ role: 'assistant' as const, content: '', toolCalls: [{ id, name: 'client_fn', arguments: { x: 1 } }] });
    await state.rememberTurn('k', turn('old_1', 'a'));
    await state.rememberTurn('k', turn('late_1', 'b'));
    // Another key's turn under the same id is not this conversation's.
    await state.rememberTurn('other', turn('filler_7', 'z'));
    // An id longer than any model writes gets no key of its size.
    await state.rememberTurn('k', turn(`long_${'x'.repeat(300)}`, 'c'));
    expect((await inspector.keys(`${prefix}{turns}:k*`)).some((key) => key.includes('long_'))).toBe(false);
    const messages = (fillers: number) => [ask('old_1'), ...Array.from({ length: fillers }, (_, i) => ask(`filler_${i % 2500}`)), ask(`long_${'x'.repeat(300)}`), ask('late_1')];
    const monitor = await inspector.monitor();
    const keysPerMget: number[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'mget' && args[1]?.startsWith(prefix)) keysPerMget.push(args.length - 1);
    });
    try {
      // 5,000 client-only tool-call messages (2,500 ids, each twice) between the two mixed
      // turns: far more than the store keeps (300), so its index is read instead, and both
      // turns are restored (their hidden server call and result added) as the in-memory store does.
      const long = messages(5000);
      const restored = await state.restoreTurns('k', long);
      expect(restored.length).toBe(long.length + 2);
      expect(restored.at(-2)).toMatchObject({ toolCalls: [{ id: 'srv_1' }, { id: 'late_1' }] });
      expect(restored[0]).toMatchObject({ toolCalls: [{ id: 'srv_1' }, { id: 'old_1' }] });
      expect(restored[1]).toMatchObject({ role: 'tool', toolCallId: 'srv_1', content: 'a' });
      // Fewer ids than the store keeps: asked for directly, each once, in slices of 256.
      const short = messages(280);
      expect((await state.restoreTurns('k', short)).length).toBe(short.length + 2);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      monitor.disconnect();
    }
    // The long conversation: its two turns; the short one: 282 distinct ids (none over 256 characters) in two MGETs.
    expect(keysPerMget).toEqual([2, 256, 26]);
  });

  it("counts what it stores: the turn's bytes in Redis, arguments included, never a result's value", async () => {
    prefixCount++;
    const prefix = `t${prefixCount}:`;
    const state = await open({ turns: { maxTextLength: 4096 } });
    const image = 'iVBORw0KGgo'.repeat(100_000);
    const screenshot: HiddenToolTurn = {
      clientCallIds: ['call_img'],
      toolCalls: [
        { id: 'srv_1', name: 'shots_screenshot', arguments: { page: 'https://example.com/€' } },
        { id: 'call_img', name: 'client_fn', arguments: { x: 1 } },
      ],
      results: [
        {
          role: 'tool',
          toolCallId: 'srv_1',
          toolName: 'shots_screenshot',
          content: '[image: image/png, 800.0 KiB]',
          result: { toolCallId: 'srv_1', name: 'shots_screenshot', success: true, message: '[image: image/png, 800.0 KiB]', value: { content: [{ type: 'image', data: image, mimeType: 'image/png' }] } },
        },
      ],
    };
    await state.rememberTurn('k', screenshot);
    const key = `${prefix}{turns}:k\ncall_img`;
    const stored = await inspector.get(key);
    expect(stored).toBe(hiddenTurnText(screenshot));
    expect(stored).not.toContain('iVBORw0KGgo');
    expect(stored).toContain('https://example.com/€');
    // The total counts the bytes Redis holds (the € is three of them), not characters or the results' text.
    expect(Number(await inspector.get(`${prefix}{turns}:total`))).toBe(await inspector.strlen(key));
    expect(await inspector.strlen(key)).toBe(Buffer.byteLength(stored ?? '', 'utf8'));
    expect(await inspector.strlen(key)).toBeLessThan(400);

    // Arguments count: a turn whose call carries 5000 characters is over a 4096-byte cap, however short its result.
    await state.rememberTurn('k', { ...turn('call_args', 'ok'), toolCalls: [{ id: 'srv_1', name: 'get_current_time', arguments: { note: 'n'.repeat(5000) } }, { id: 'call_args', name: 'client_fn', arguments: {} }] });
    expect(await inspector.exists(`${prefix}{turns}:k\ncall_args`)).toBe(0);
    // Multi-byte text counts its bytes: 1500 characters of € are 4500 bytes.
    await state.rememberTurn('k', turn('call_euro', '€'.repeat(1500)));
    expect(await inspector.exists(`${prefix}{turns}:k\ncall_euro`)).toBe(0);
  });

  it('answers 503 at once while Redis is down, and recovers when it returns', async () => {
    prefixCount++;
    const state = await open();
    expect(await state.takeRate('k', 100)).toEqual({ allowed: true });
    await server.stop();
    // The connection's loss is noticed.
    for (let i = 0; i < 200 && state.available; i++) await new Promise((r) => setTimeout(r, 25));
    expect(state.available).toBe(false);
    const startedAt = performance.now();
    const failure = await state.takeRate('k', 100).catch((error: unknown) => error);
    expect(performance.now() - startedAt).toBeLessThan(1000);
    expect(GatewayError.isInstance(failure) && failure.status).toBe(503);
    expect(GatewayError.isInstance(failure) && failure.code).toBe('state_unavailable');
    expect(GatewayError.isInstance(failure) && failure.message).toContain('Redis');
    await expect(state.restoreTurns('k', [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: {} }] }])).rejects.toMatchObject({ status: 503 });

    await server.start();
    expect(await state.whenAvailable(15_000)).toBe(true);
    expect(await state.takeRate('k', 100)).toEqual({ allowed: true });
    inspector.disconnect();
    inspector = new Redis(server.url);
  });
});
