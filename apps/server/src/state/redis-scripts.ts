// Lua scripts run atomically by Redis (or Valkey): one round trip per operation, and no
// two instances can interleave inside one. The clock is Redis's own (`TIME`), so
// instances with skewed clocks still agree.

// Milliseconds with the microseconds as a fraction: two uses within one millisecond still order.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000`;

/**
 * A token bucket. KEYS[1] the bucket (hash: tokens, ts); ARGV[1] capacity, ARGV[2] refill
 * per ms. Returns { allowed (1/0), ms until a token is back }.
 */
export const TAKE_RATE = `${NOW}
local capacity = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(bucket[1]) or capacity
local ts = tonumber(bucket[2]) or now
if now > ts then tokens = math.min(capacity, tokens + (now - ts) * perMs) end
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) / perMs)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(math.max(now, ts)))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / perMs) + 1000)
return { allowed, wait }`;

/**
 * A counting semaphore of leases. KEYS[1] the sorted set (member: slot id, score: lease
 * end); ARGV[1] limit, ARGV[2] lease ms, ARGV[3] slot id. Returns 1 when taken. A lease
 * of a crashed instance lapses on its own.
 */
export const ACQUIRE_SLOT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1`;

/** Extends a held lease. KEYS[1] the sorted set; ARGV[1] lease ms, ARGV[2] slot id. */
export const RENEW_SLOT = `${NOW}
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
  return 1
end
return 0`;

const DROP_TURN = `local function drop(key)
  local size = redis.call('HGET', KEYS[3], key)
  if size then
    redis.call('DECRBY', KEYS[4], size)
    redis.call('HDEL', KEYS[3], key)
  end
  redis.call('ZREM', KEYS[2], key)
  redis.call('DEL', key)
end`;

// The index, the sizes and the total describe the same turns. A Redis that evicts keys
// (maxmemory with an allkeys-* policy) can take one of them and leave the others: the total
// would then count turns nobody can drop any more, and every new turn would be pushed out
// at once for as long as turns keep being stored. When they disagree (counts differ, a
// total is missing beside stored turns, or one is left beside none: index and sizes both
// gone) they are rebuilt from the turn keys they still name: each one's bytes and remaining
// lifetime. Turns that nothing names any more lapse with their TTL.
const REBUILD_TURN_INDEX = `local function rebuild()
  local names = {}
  for _, key in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do names[key] = true end
  for _, key in ipairs(redis.call('HKEYS', KEYS[3])) do names[key] = true end
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
  local total = 0
  for key in pairs(names) do
    local left = redis.call('PTTL', key)
    if left > 0 and redis.call('TYPE', key).ok == 'string' then
      local size = redis.call('STRLEN', key)
      redis.call('ZADD', KEYS[2], now + left, key)
      redis.call('HSET', KEYS[3], key, size)
      total = total + size
    end
  end
  redis.call('SET', KEYS[4], total)
end
local count = redis.call('ZCARD', KEYS[2])
local counted = redis.call('GET', KEYS[4])
if count ~= redis.call('HLEN', KEYS[3]) or (count > 0 and not counted) or (count == 0 and counted and tonumber(counted) ~= 0) then rebuild() end`;

/**
 * Stores one hidden turn and applies the store's limits, like the in-memory store: lapsed
 * turns go, then the least recently used while over `maxEntries` or over the total text
 * size. KEYS[1] the turn, KEYS[2] the use index (sorted set, score: expiry), KEYS[3] sizes
 * (hash), KEYS[4] total size; ARGV[1] the turn JSON, ARGV[2] its size, ARGV[3] ttl ms,
 * ARGV[4] maxEntries, ARGV[5] maxTextLength.
 */
export const REMEMBER_TURN = `${NOW}
${DROP_TURN}
${REBUILD_TURN_INDEX}
local ttl = tonumber(ARGV[3])
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do drop(key) end
drop(KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], ARGV[2])
redis.call('INCRBY', KEYS[4], ARGV[2])
while redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[4]) or tonumber(redis.call('GET', KEYS[4]) or '0') > tonumber(ARGV[5]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 then break end
  drop(oldest[1])
end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PEXPIRE', KEYS[4], ttl)
return 1`;

/** A restored turn lives another ttl and becomes the most recently used. KEYS as for REMEMBER_TURN; ARGV[1] ttl ms. */
export const TOUCH_TURN = `${NOW}
local ttl = tonumber(ARGV[1])
if redis.call('PEXPIRE', KEYS[1], ttl) == 1 then
  redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
end
return 1`;

/**
 * Asks Redis whether it takes the state's writes (reachable is not enough: an out-of-memory
 * server or a read-only replica answers, and refuses), and whether the user may run every
 * command the other scripts use: an ACL refusal of one the probe skipped would fail every
 * request that needs it while the probe passed, and readiness would flap once a second.
 * The first write comes first (Redis refuses only a script's first write when it cannot
 * persist or lacks replicas). KEYS[1] a string, KEYS[2] a hash, KEYS[3] a sorted set, all
 * the probe's own; ARGV[1] `1`. Leaves only KEYS[1], with a 10 s TTL.
 */
export const PROBE = `redis.call('TIME')
redis.call('SET', KEYS[1], ARGV[1], 'PX', 10000)
redis.call('GET', KEYS[1])
redis.call('INCRBY', KEYS[1], 0)
redis.call('DECRBY', KEYS[1], 0)
redis.call('STRLEN', KEYS[1])
redis.call('EXISTS', KEYS[1])
redis.call('TYPE', KEYS[1])
redis.call('PEXPIRE', KEYS[1], 10000)
redis.call('PTTL', KEYS[1])
redis.call('HSET', KEYS[2], 'probe', ARGV[1])
redis.call('HGET', KEYS[2], 'probe')
redis.call('HMGET', KEYS[2], 'probe')
redis.call('HKEYS', KEYS[2])
redis.call('HLEN', KEYS[2])
redis.call('HDEL', KEYS[2], 'probe')
redis.call('ZADD', KEYS[3], 0, 'probe')
redis.call('ZSCORE', KEYS[3], 'probe')
redis.call('ZCARD', KEYS[3])
redis.call('ZRANGE', KEYS[3], 0, -1)
redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', 0)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', 0)
redis.call('DEL', KEYS[2], KEYS[3])
return 1`;
