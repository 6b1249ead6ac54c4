import { generateId } from '@toolwire/core';
import type { Message } from '@toolwire/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateDecision } from '../auth/rate-limiter.ts';
import { hiddenTurnText, restoreHiddenTurns, turnLookupIds } from '../hidden-tool-turns.ts';
import type { HiddenToolTurn, StoredHiddenTurn } from '../hidden-tool-turns.ts';
import { ConfigError } from '../config/config-error.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import type { GatewayState, SlotDecision } from './gateway-state.ts';
import { classifyRedisFailure, redisFailure, REPLY_TOO_LARGE, UNEXPECTED_REPLY } from './redis-failure.ts';
import type { RedisFailure, RedisFailureKind } from './redis-failure.ts';
import { ACQUIRE_SLOT, PROBE, REMEMBER_TURN, RENEW_SLOT, TAKE_RATE, TOUCH_TURN } from './redis-scripts.ts';
import { stateUnavailable } from './state-unavailable-error.ts';
import { parseStoredTurn } from './stored-turn.ts';

/** Options of `createRedisState`. */
export interface RedisStateOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). */
  url: string;
  /** Prefix of every key (default `toolwire:`), to share one Redis between deployments. */
  keyPrefix?: string;
  /**
   * A command's time limit before the request gets its 503 (default 1000 ms). A command
   * unanswered for this long drops the connection: Redis is treated as down until it answers again.
   */
  commandTimeoutMs?: number;
  /** Hidden-turn limits, as for the in-memory store (`maxTextLength` counts the stored JSON's UTF-8 bytes here). */
  turns?: { maxEntries?: number; maxTextLength?: number; ttlMs?: number };
  /** How long a concurrency slot's lease lasts without renewal (default 60 s; renewed while held). */
  slotLeaseMs?: number;
  /**
   * How often a connected Redis that refuses the state (out of memory, read-only, busy) is
   * asked again (default 1000 ms). Every tenth refusal of a replica re-opens the connection,
   * so that a failover behind the same address is found.
   */
  probeIntervalMs?: number;
  /**
   * The most bytes one reply may take (default 128 MiB): a server that sends more (not
   * Redis, or an endless reply) has its connection dropped instead of filling memory.
   */
  maxReplyBytes?: number;
  logger: Logger;
}

/** Query parameters of a Redis URL that are never secret; ioredis reads every other one as an option (`?password=…`). */
const PLAIN_QUERY: ReadonlySet<string> = new Set(['db', 'family']);

/** The URL without its credentials, for logs: password (or a lone user part) and query values other than `db`/`family` masked. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    // `redis://secret@host` is a password written where the user goes.
    else if (parsed.username !== '') parsed.username = '***';
    for (const name of [...parsed.searchParams.keys()]) {
      if (!PLAIN_QUERY.has(name)) parsed.searchParams.set(name, '***');
    }
    return parsed.toString();
  } catch {
    return '(unparseable Redis URL)';
  }
}

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/** One log line per kind of failure at most this often; the next says how many were left out. */
const LOG_INTERVAL_MS = 30_000;
/** A replica that refuses this many probes in a row gets a new connection (a failover may have moved the primary). */
const REFUSALS_BEFORE_RECONNECT = 10;
/** Slot releases kept for a Redis that is back (beyond them, leases lapse on their own). */
const MAX_PENDING_RELEASES = 10_000;
const MAX_REASON_LENGTH = 200;
/**
 * The longest client call id a turn is kept and looked up by (the keys hold it). Models' ids
 * are tens of characters; a client sending longer ones gets no Redis key of that size.
 */
const MAX_TURN_ID_LENGTH = 256;
/** Keys per `MGET` when a conversation's turns are looked up. */
const MGET_SLICE = 256;

function unexpectedReply(what: string): Error {
  return new Error(`${UNEXPECTED_REPLY}: ${what}`);
}

/**
 * The shared state on Redis (or Valkey): rate limits as one Lua script per take (atomic
 * across instances, Redis's clock), concurrency slots as leases in a sorted set (a crashed
 * instance's lapse), hidden turns as JSON with a TTL and the in-memory store's limits
 * (count, total size, least recently used first). Every key has a TTL.
 *
 * Fails closed and fast: while Redis is unreachable, silent, or refusing the state's writes
 * (out of memory, a read-only replica, a busy script, bad credentials), commands are not
 * sent at all and a request that needs the state gets a 503 (`state_unavailable`) at once.
 * A command unanswered within the command timeout drops the connection. The state is
 * available again when a probe write succeeds (the client reconnects on its own).
 */
export function createRedisState(options: RedisStateOptions): GatewayState {
  const { logger } = options;
  const prefix = options.keyPrefix ?? 'toolwire:';
  const where = redactRedisUrl(options.url);
  const leaseMs = options.slotLeaseMs ?? 60_000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 1000;
  const turnTtlMs = options.turns?.ttlMs ?? 60 * 60 * 1000;
  const maxEntries = options.turns?.maxEntries ?? 1000;
  const maxTextLength = options.turns?.maxTextLength ?? 16 * 1024 * 1024;
  const maxReplyBytes = options.maxReplyBytes ?? 128 * 1024 * 1024;
  const probeIntervalMs = options.probeIntervalMs ?? 1000;
  // One hash tag for the turn keys: the scripts touch several of them at once.
  const turnKey = (principal: string, firstCallId: string): string => `${prefix}{turns}:${principal}\n${firstCallId}`;
  const turnKeys = [`${prefix}{turns}:index`, `${prefix}{turns}:sizes`, `${prefix}{turns}:total`] as const;
  // One hash tag: the probe script touches all three.
  const probeKeys = [`${prefix}{probe}`, `${prefix}{probe}:hash`, `${prefix}{probe}:zset`] as const;

  // ioredis would throw Node's `Invalid URL` error, whose `input` is the whole URL, password included.
  if (!URL.canParse(options.url)) {
    throw new ConfigError({ setting: 'state.redis.url', message: 'not a URL; expected redis://[user:password@]host:port[/db] or rediss://… (the value is not repeated here: it may hold a password).' });
  }
  const client = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    // A connection being closed waits this long for the server's goodbye (a silent server sends none).
    disconnectTimeout: commandTimeoutMs,
    // Reconnect for as long as the process runs, backing off to one attempt every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  client.defineCommand('twTakeRate', { numberOfKeys: 1, lua: TAKE_RATE });
  client.defineCommand('twAcquireSlot', { numberOfKeys: 1, lua: ACQUIRE_SLOT });
  client.defineCommand('twRenewSlot', { numberOfKeys: 1, lua: RENEW_SLOT });
  client.defineCommand('twRememberTurn', { numberOfKeys: 4, lua: REMEMBER_TURN });
  client.defineCommand('twTouchTurn', { numberOfKeys: 4, lua: TOUCH_TURN });
  client.defineCommand('twProbe', { numberOfKeys: 3, lua: PROBE });
  const script = (name: string): ScriptCall => {
    const fn = (client as unknown as Record<string, ScriptCall>)[name];
    if (fn === undefined) throw new Error(`Redis script ${name} is not defined.`);
    const call = fn.bind(client);
    // ioredis answers NOSCRIPT (scripts flushed) by sending the script once more, but
    // concurrent calls across a SCRIPT FLUSH can get NOSCRIPT twice. The script did not
    // run, so one more call is safe; ioredis then sends the script itself.
    return (...args) =>
      call(...args)
        .catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return call(...args);
          throw error;
        })
        .finally(replyRead);
  };
  const takeRate = script('twTakeRate');
  const acquire = script('twAcquireSlot');
  const renew = script('twRenewSlot');
  const rememberTurn = script('twRememberTurn');
  const touchTurn = script('twTouchTurn');
  const probeWrite = script('twProbe');
  const zrem = (key: string, ids: string[]): Promise<unknown> => client.zrem(key, ...ids).finally(replyRead);

  /**
   * Which of `ids` (a conversation's, the latest first) the store holds a turn for, from its
   * index: the `maxEntries` most recently used keys, all the store keeps. In the order of `ids`.
   */
  const heldTurnIds = async (principal: string, ids: readonly string[]): Promise<string[]> => {
    const members: unknown = await client.zrange(turnKeys[0], String(-maxEntries), '-1');
    if (!Array.isArray(members)) throw unexpectedReply('ZRANGE');
    const own = turnKey(principal, '');
    const held = new Set<string>();
    for (const member of members) {
      if (typeof member === 'string' && member.startsWith(own)) held.add(member.slice(own.length));
    }
    return held.size === 0 ? [] : ids.filter((id) => held.has(id));
  };

  // Bytes read since the last reply: an endless or oversized reply drops the connection.
  let replyBytes = 0;
  function replyRead(): void {
    replyBytes = 0;
  }
  /** The connection is up (ioredis `ready`, no `close` since). */
  let connected = false;
  /** Requests may use Redis: connected, and the last probe or command found it serving. */
  let available = false;
  let closed = false;
  let probing = false;
  let probeTimer: NodeJS.Timeout | undefined;
  /** Refusals in a row from a Redis that a new connection may fix (a replica). */
  let refusals = 0;
  /** Whether this outage was logged, so that its end is too (and a suppressed one's is not). */
  let outageLogged = false;
  const waiters = new Set<() => void>();
  const held = new Set<() => void>();
  /** Slot ids whose removal Redis has not confirmed (an outage, or an acquire whose outcome is unknown), by key. */
  const pendingReleases = new Map<string, Set<string>>();
  let pendingCount = 0;

  // Logs bounded whatever the traffic: per kind, one line and then one every LOG_INTERVAL_MS.
  const lastLogged = new Map<RedisFailureKind, { at: number; skipped: number }>();
  const report = (failure: RedisFailure, reason: string, operation?: string): boolean => {
    const now = Date.now();
    const last = lastLogged.get(failure.kind);
    if (last !== undefined && now - last.at < LOG_INTERVAL_MS) {
      last.skipped++;
      return false;
    }
    lastLogged.set(failure.kind, { at: now, skipped: 0 });
    const fields = {
      redis: where,
      problem: failure.kind,
      reason: reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}…` : reason,
      ...(operation === undefined ? {} : { operation }),
      ...(last === undefined || last.skipped === 0 ? {} : { repeatedSinceLastLog: last.skipped }),
    };
    if (failure.outage) logger.error(fields, failure.message);
    else logger.warn(fields, failure.message);
    return true;
  };

  const setAvailable = (): void => {
    if (available || closed) return;
    available = true;
    refusals = 0;
    if (outageLogged) logger.info({ redis: where }, 'Redis is reachable again: shared state restored');
    outageLogged = false;
    for (const wake of [...waiters]) wake();
    flushReleases();
  };

  /** Drops the connection (ioredis reconnects): its replies can no longer be trusted or awaited. */
  const dropConnection = (): void => {
    const stream = client.stream as typeof client.stream | undefined;
    // Without an error: the failure that asked for this was reported already.
    if (stream !== undefined && !stream.destroyed) stream.destroy();
  };

  /** Reports a failure; one of Redis as a whole makes the state unavailable until a probe succeeds. */
  const fail = (error: unknown, operation?: string): void => {
    if (closed) return;
    const failure = classifyRedisFailure(error);
    const logged = report(failure, error instanceof Error ? error.message : String(error), operation);
    if (!failure.outage) return;
    if (logged) outageLogged = true;
    available = false;
    if (failure.dropConnection) dropConnection();
    else if (failure.newConnectionMayHelp === true && ++refusals % REFUSALS_BEFORE_RECONNECT === 0) dropConnection();
    else scheduleProbe();
  };

  /** Asks a connected Redis whether it takes writes again; on success the state is available. */
  const probe = (): void => {
    if (closed || probing || !connected || available) return;
    probing = true;
    probeWrite(...probeKeys, '1')
      .then(async (reply) => {
        if (reply !== 1) throw unexpectedReply('the probe script');
        // And the commands requests send outside scripts.
        await client.mget(probeKeys[0]).finally(replyRead);
        await zrem(probeKeys[2], ['probe']);
        setAvailable();
      })
      .catch((error: unknown) => fail(error, 'probe'))
      .finally(() => {
        probing = false;
        // Asked again whatever the failure: one not counted as an outage (an error reply
        // this version of Redis words differently) would otherwise leave the state
        // unavailable until the connection happens to drop.
        if (!available) scheduleProbe();
      });
  };
  const scheduleProbe = (): void => {
    if (closed || !connected || probeTimer !== undefined) return;
    probeTimer = setTimeout(() => {
      probeTimer = undefined;
      probe();
    }, probeIntervalMs);
    probeTimer.unref();
  };

  const queueRelease = (key: string, id: string): void => {
    if (pendingCount >= MAX_PENDING_RELEASES) return;
    let ids = pendingReleases.get(key);
    if (ids === undefined) pendingReleases.set(key, (ids = new Set()));
    if (!ids.has(id)) pendingCount++;
    ids.add(id);
  };
  /** Sends the releases an outage held back; one that fails again waits for the next recovery. */
  const flushReleases = (): void => {
    for (const [key, ids] of pendingReleases) {
      pendingReleases.delete(key);
      pendingCount -= ids.size;
      zrem(key, [...ids]).catch(() => {
        for (const id of ids) queueRelease(key, id);
      });
    }
  };

  /** The connection came up (TCP; TLS too for rediss://) and has reported no error since: a close before `ready` is then news. */
  let upWithoutError = false;
  client.on('connect', () => {
    upWithoutError = true;
    replyBytes = 0;
    const stream = client.stream;
    stream.on('data', (chunk: Buffer) => {
      replyBytes += chunk.length;
      if (replyBytes > maxReplyBytes) stream.destroy(new Error(`${REPLY_TOO_LARGE}: over ${maxReplyBytes} bytes without the end of a reply`));
    });
  });
  client.on('ready', () => {
    connected = true;
    replyRead();
    probe();
  });
  client.on('error', (error: Error) => {
    upWithoutError = false;
    fail(error);
  });
  client.on('close', () => {
    const wasConnected = connected;
    const closedBeforeReady = !connected && upWithoutError;
    connected = false;
    upWithoutError = false;
    clearTimeout(probeTimer);
    probeTimer = undefined;
    // The error that closed it (if any) was reported already; a close out of the blue is news.
    if (wasConnected && available) fail(new Error('connection closed'));
    // Closed by the other side before it answered anything, and without an error: otherwise
    // an outage nothing would log (reconnects go on quietly).
    else if (closedBeforeReady) fail(new Error('connection closed before Redis answered (a TLS-only port reached with redis:// instead of rediss://, or a proxy with no Redis behind it)'));
    available = false;
  });
  client.connect().catch(() => undefined);

  /** Runs one Redis operation; any failure of Redis itself becomes the 503. */
  const guarded = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    if (!available) throw stateUnavailable('Redis');
    try {
      return await run();
    } catch (error) {
      if (GatewayError.isInstance(error)) throw error;
      fail(error, operation);
      throw stateUnavailable('Redis');
    } finally {
      replyRead();
    }
  };

  return {
    kind: 'redis',
    get available() {
      return available;
    },
    takeRate(keyId, requestsPerMinute): Promise<RateDecision> {
      return guarded('rate limit', async () => {
        const reply = await takeRate(`${prefix}rate:${keyId}`, requestsPerMinute, requestsPerMinute / 60_000);
        if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1) || typeof reply[1] !== 'number' || !Number.isFinite(reply[1])) {
          throw unexpectedReply('the rate-limit script');
        }
        if (reply[0] === 1) return { allowed: true };
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(reply[1] / 1000)) };
      });
    },
    acquireSlot(keyId, limit): Promise<SlotDecision> {
      const key = `${prefix}slots:${keyId}`;
      const id = generateId('slot_', 12);
      return guarded('concurrency slot', async () => {
        let reply: unknown;
        try {
          reply = await acquire(key, limit, leaseMs, id);
        } catch (error) {
          // Unanswered is not refused: Redis may still run it (a paused server does once it
          // resumes), and the slot would be held for a whole lease by nobody.
          if (classifyRedisFailure(error).outage) queueRelease(key, id);
          throw error;
        }
        if (reply === 0) return { acquired: false };
        if (reply !== 1) {
          queueRelease(key, id);
          throw unexpectedReply('the concurrency-slot script');
        }
        // Renewed while the request runs; a crashed instance's lease lapses after `leaseMs`.
        const timer = setInterval(() => {
          if (available) renew(key, leaseMs, id).catch((error: unknown) => fail(error, 'renew concurrency slot'));
        }, Math.max(1000, Math.floor(leaseMs / 3)));
        timer.unref();
        let released = false;
        const release = (): void => {
          if (released) return;
          released = true;
          clearInterval(timer);
          held.delete(release);
          // A release Redis does not confirm is sent again once it is back; it lapses with the lease otherwise.
          if (!available) {
            queueRelease(key, id);
            return;
          }
          zrem(key, [id]).catch((error: unknown) => {
            queueRelease(key, id);
            fail(error, 'release concurrency slot');
          });
        };
        held.add(release);
        return { acquired: true, slot: { release } };
      });
    },
    rememberTurn(principal, turn: HiddenToolTurn) {
      const first = turn.clientCallIds[0];
      // An id longer than any model's is never looked up (see `restoreTurns`): not kept either.
      if (first === undefined || first.length > MAX_TURN_ID_LENGTH || turn.results.length === 0) return Promise.resolve();
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
      const all = turnLookupIds(messages, { maxIdLength: MAX_TURN_ID_LENGTH });
      // A conversation without tool calls needs nothing from Redis.
      if (all.length === 0) return Promise.resolve(messages);
      return guarded('restore turns', async () => {
        // More tool-call messages than the store keeps turns (a client may send thousands):
        // the store's index says which of them it holds (at most `maxEntries` keys), rather
        // than a key per message. Not only the latest ids: most tool-call turns are the
        // client's alone and never stored, and a mixed turn far back is still kept.
        const ids = all.length <= maxEntries ? all : await heldTurnIds(principal, all);
        if (ids.length === 0) return messages;
        // In slices, so that one long conversation does not hold Redis (one thread for every
        // instance and key) in a single command.
        const values: unknown[] = [];
        for (let at = 0; at < ids.length; at += MGET_SLICE) {
          const slice = ids.slice(at, at + MGET_SLICE);
          const reply: unknown = await client.mget(slice.map((id) => turnKey(principal, id)));
          if (!Array.isArray(reply) || reply.length !== slice.length) throw unexpectedReply('MGET');
          values.push(...(reply as unknown[]));
        }
        const found = new Map<string, StoredHiddenTurn>();
        for (const [index, value] of values.entries()) {
          const id = ids[index];
          if (value === null || id === undefined) continue;
          const turn = typeof value === 'string' ? parseStoredTurn(value) : undefined;
          if (turn === undefined) {
            // Not ours (another program's value under the prefix): as if there were no turn.
            report(redisFailure('foreign_value'), 'a turn key holds a value that is not a Toolwire turn', 'restore turns');
            continue;
          }
          found.set(id, turn);
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
          waiters.delete(done);
          resolve(available);
        };
        const timer = setTimeout(done, timeoutMs);
        waiters.add(done);
      });
    },
    async close() {
      for (const release of [...held]) release();
      if (available) flushReleases();
      closed = true;
      clearTimeout(probeTimer);
      for (const wake of [...waiters]) wake();
      try {
        if (available) await client.quit();
      } catch {
        // Already gone: nothing to flush.
      } finally {
        available = false;
        client.disconnect();
      }
    },
  };
}
