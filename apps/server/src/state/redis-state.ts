import { generateId } from '@toolwire/core';
import type { Message } from '@toolwire/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateDecision } from '../auth/rate-limiter.ts';
import { hiddenTurnText, restoreHiddenTurns, turnLookupIds } from '../hidden-tool-turns.ts';
import type { HiddenToolTurn, StoredHiddenTurn } from '../hidden-tool-turns.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import type { GatewayState, SlotDecision } from './gateway-state.ts';
import { ACQUIRE_SLOT, REMEMBER_TURN, RENEW_SLOT, TAKE_RATE, TOUCH_TURN } from './redis-scripts.ts';
import { stateUnavailable } from './state-unavailable-error.ts';

/** Options of `createRedisState`. */
export interface RedisStateOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). */
  url: string;
  /** Prefix of every key (default `toolwire:`), to share one Redis between deployments. */
  keyPrefix?: string;
  /** A command's time limit before the request gets its 503 (default 1000 ms). */
  commandTimeoutMs?: number;
  /** Hidden-turn limits, as for the in-memory store (`maxTextLength` counts the stored JSON's UTF-8 bytes here). */
  turns?: { maxEntries?: number; maxTextLength?: number; ttlMs?: number };
  /** How long a concurrency slot's lease lasts without renewal (default 60 s; renewed while held). */
  slotLeaseMs?: number;
  logger: Logger;
}

/** The URL without its password, for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable Redis URL)';
  }
}

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

const OUTAGE_LOG_INTERVAL_MS = 30_000;

/**
 * The shared state on Redis (or Valkey): rate limits as one Lua script per take (atomic
 * across instances, Redis's clock), concurrency slots as leases in a sorted set (a crashed
 * instance's lapse), hidden turns as JSON with a TTL and the in-memory store's limits
 * (count, total size, least recently used first). Every key has a TTL.
 *
 * Commands are never queued while Redis is unreachable: they fail at once, and the
 * request gets a 503 (`state_unavailable`; limits fail closed). The client reconnects on
 * its own and the state is available again as soon as Redis is.
 */
export function createRedisState(options: RedisStateOptions): GatewayState {
  const { logger } = options;
  const prefix = options.keyPrefix ?? 'toolwire:';
  const where = redactRedisUrl(options.url);
  const leaseMs = options.slotLeaseMs ?? 60_000;
  const turnTtlMs = options.turns?.ttlMs ?? 60 * 60 * 1000;
  const maxEntries = options.turns?.maxEntries ?? 1000;
  const maxTextLength = options.turns?.maxTextLength ?? 16 * 1024 * 1024;
  // One hash tag for the turn keys: the scripts touch several of them at once.
  const turnKey = (principal: string, firstCallId: string): string => `${prefix}{turns}:${principal}\n${firstCallId}`;
  const turnKeys = [`${prefix}{turns}:index`, `${prefix}{turns}:sizes`, `${prefix}{turns}:total`] as const;

  const client = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    // Reconnect for as long as the process runs, backing off to one attempt every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  const scripts = { TAKE_RATE, ACQUIRE_SLOT, RENEW_SLOT, REMEMBER_TURN, TOUCH_TURN };
  client.defineCommand('twTakeRate', { numberOfKeys: 1, lua: scripts.TAKE_RATE });
  client.defineCommand('twAcquireSlot', { numberOfKeys: 1, lua: scripts.ACQUIRE_SLOT });
  client.defineCommand('twRenewSlot', { numberOfKeys: 1, lua: scripts.RENEW_SLOT });
  client.defineCommand('twRememberTurn', { numberOfKeys: 4, lua: scripts.REMEMBER_TURN });
  client.defineCommand('twTouchTurn', { numberOfKeys: 4, lua: scripts.TOUCH_TURN });
  const script = (name: string): ScriptCall => {
    const fn = (client as unknown as Record<string, ScriptCall>)[name];
    if (fn === undefined) throw new Error(`Redis script ${name} is not defined.`);
    return fn.bind(client);
  };
  const takeRate = script('twTakeRate');
  const acquire = script('twAcquireSlot');
  const renew = script('twRenewSlot');
  const rememberTurn = script('twRememberTurn');
  const touchTurn = script('twTouchTurn');

  let available = false;
  let closed = false;
  let lastOutageLog = 0;
  const held = new Set<() => void>();
  client.on('ready', () => {
    if (!available && lastOutageLog !== 0) logger.info({ redis: where }, 'Redis is reachable again: shared state restored');
    available = true;
    lastOutageLog = 0;
  });
  const down = (reason: string): void => {
    available = false;
    if (closed) return;
    const now = Date.now();
    if (now - lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    lastOutageLog = now;
    logger.error({ redis: where, reason }, 'Redis is unreachable: requests that need shared state (rate limits, concurrency slots, mixed turns) get 503 until it is back');
  };
  client.on('error', (error: Error) => down(error.message));
  client.on('close', () => down('connection closed'));
  client.connect().catch((error: unknown) => down(error instanceof Error ? error.message : String(error)));

  /** Runs one Redis operation; any failure of Redis itself becomes the 503. */
  const guarded = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    if (!available) throw stateUnavailable('Redis');
    try {
      return await run();
    } catch (error) {
      if (GatewayError.isInstance(error)) throw error;
      logger.warn({ redis: where, operation, reason: error instanceof Error ? error.message : String(error) }, 'Redis command failed');
      throw stateUnavailable('Redis');
    }
  };

  return {
    kind: 'redis',
    get available() {
      return available;
    },
    takeRate(keyId, requestsPerMinute): Promise<RateDecision> {
      return guarded('rate limit', async () => {
        const reply = (await takeRate(`${prefix}rate:${keyId}`, requestsPerMinute, requestsPerMinute / 60_000)) as [number, number];
        if (reply[0] === 1) return { allowed: true };
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(reply[1] / 1000)) };
      });
    },
    acquireSlot(keyId, limit): Promise<SlotDecision> {
      return guarded('concurrency slot', async () => {
        const key = `${prefix}slots:${keyId}`;
        const id = generateId('slot_', 12);
        if ((await acquire(key, limit, leaseMs, id)) !== 1) return { acquired: false };
        // Renewed while the request runs; a crashed instance's lease lapses after `leaseMs`.
        const timer = setInterval(() => {
          renew(key, leaseMs, id).catch(() => undefined);
        }, Math.max(1000, Math.floor(leaseMs / 3)));
        timer.unref();
        let released = false;
        const release = (): void => {
          if (released) return;
          released = true;
          clearInterval(timer);
          held.delete(release);
          // A release lost to an outage lapses with the lease.
          client.zrem(key, id).catch(() => undefined);
        };
        held.add(release);
        return { acquired: true, slot: { release } };
      });
    },
    rememberTurn(principal, turn: HiddenToolTurn) {
      const first = turn.clientCallIds[0];
      if (first === undefined || turn.results.length === 0) return Promise.resolve();
      const text = hiddenTurnText(turn);
      if (text === undefined) return Promise.resolve();
      // Redis holds the text's bytes. A turn larger than the whole cap is not kept, as in memory.
      const size = Buffer.byteLength(text, 'utf8');
      if (size > maxTextLength) return Promise.resolve();
      return guarded('remember turn', async () => {
        await rememberTurn(turnKey(principal, first), ...turnKeys, text, size, turnTtlMs, maxEntries, maxTextLength);
      });
    },
    restoreTurns(principal, messages: Message[]) {
      const ids = turnLookupIds(messages);
      // A conversation without tool calls needs nothing from Redis.
      if (ids.length === 0) return Promise.resolve(messages);
      return guarded('restore turns', async () => {
        const values = await client.mget(ids.map((id) => turnKey(principal, id)));
        const found = new Map<string, StoredHiddenTurn>();
        for (const [index, value] of values.entries()) {
          const id = ids[index];
          if (value === null || id === undefined) continue;
          found.set(id, JSON.parse(value) as StoredHiddenTurn);
        }
        if (found.size === 0) return messages;
        const used: string[] = [];
        const restored = restoreHiddenTurns(messages, (id) => found.get(id), (id) => used.push(id));
        // Awaited: the next remember must see these turns as recently used.
        await Promise.all(used.map((id) => touchTurn(turnKey(principal, id), ...turnKeys, turnTtlMs)));
        return restored;
      });
    },
    whenAvailable(timeoutMs) {
      if (available) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          client.off('ready', done);
          resolve(available);
        };
        const timer = setTimeout(done, timeoutMs);
        client.on('ready', done);
      });
    },
    async close() {
      closed = true;
      for (const release of [...held]) release();
      try {
        if (available) await client.quit();
      } catch {
        // Already gone: nothing to flush.
      } finally {
        client.disconnect();
      }
    },
  };
}
