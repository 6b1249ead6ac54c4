/** What went wrong with Redis, as far as the gateway's answer and its log line are concerned. */
export type RedisFailureKind =
  | 'unreachable'
  | 'timeout'
  | 'busy'
  | 'loading'
  | 'out_of_memory'
  | 'read_only'
  | 'primary_down'
  | 'too_few_replicas'
  | 'cannot_persist'
  | 'auth_required'
  | 'auth_failed'
  | 'no_permission'
  | 'wrong_type'
  | 'foreign_value'
  | 'not_redis'
  | 'tls_failed'
  | 'error';

/** A Redis failure sorted: how the state reacts to it and the log line that names it. */
export interface RedisFailure {
  kind: RedisFailureKind;
  /**
   * True when Redis as a whole cannot serve the state (not one key): readiness turns false
   * and requests that need the state get 503 at once until a probe succeeds.
   */
  outage: boolean;
  /** True when the connection can no longer be trusted (no answer, or bytes that are not Redis's): it is dropped and re-opened. */
  dropConnection: boolean;
  /** True when a new connection may find it fixed while this one does not: a failover moves the primary behind the same address. */
  newConnectionMayHelp?: boolean;
  /** The log line: names Redis, says what the client gets and what to do. */
  message: string;
}

const GET_503 = 'requests that need shared state (rate limits, concurrency slots, mixed turns) get 503';

const FAILURES: Record<RedisFailureKind, Omit<RedisFailure, 'kind'>> = {
  unreachable: { outage: true, dropConnection: false, message: `Redis is unreachable: ${GET_503} until it is back` },
  timeout: {
    outage: true,
    dropConnection: true,
    message: `Redis did not answer within the command timeout (paused, overloaded, running a long script, or a stalled network): the connection is re-opened and ${GET_503} until Redis answers`,
  },
  busy: { outage: true, dropConnection: false, message: `Redis is busy running a script (BUSY): ${GET_503} until the script ends (SCRIPT KILL ends it)` },
  loading: { outage: true, dropConnection: false, message: `Redis is loading its data (LOADING): ${GET_503} until it has loaded` },
  out_of_memory: {
    outage: true,
    dropConnection: false,
    message: `Redis is out of memory and refuses writes (OOM: maxmemory reached with noeviction): ${GET_503} until it has room; raise maxmemory (every Toolwire key has a TTL, so a volatile-* eviction policy can also make room)`,
  },
  read_only: {
    outage: true,
    dropConnection: false,
    newConnectionMayHelp: true,
    message: `Redis is a read-only replica (READONLY): point state.redis.url / TOOLWIRE_REDIS_URL at the primary; ${GET_503} until writes succeed`,
  },
  primary_down: { outage: true, dropConnection: false, newConnectionMayHelp: true, message: `Redis is a replica that lost its primary (MASTERDOWN): point state.redis.url at the primary; ${GET_503} until it answers` },
  too_few_replicas: {
    outage: true,
    dropConnection: false,
    message: `Redis refuses writes because too few replicas are connected (NOREPLICAS: min-replicas-to-write): ${GET_503} until enough replicas are back, or lower min-replicas-to-write`,
  },
  cannot_persist: {
    outage: true,
    dropConnection: false,
    message: `Redis refuses writes because it could not save its data to disk (MISCONF: stop-writes-on-bgsave-error): ${GET_503} until a save succeeds; Redis's own log says why (a full disk, an unwritable dir)`,
  },
  auth_required: {
    outage: true,
    dropConnection: false,
    message: `Redis requires a password (NOAUTH): put it in state.redis.url or TOOLWIRE_REDIS_URL (redis://:password@host:port, or redis://user:password@host:port); ${GET_503} until it is set`,
  },
  auth_failed: {
    outage: true,
    dropConnection: false,
    message: `Redis refused the user or password (WRONGPASS): check the credentials in state.redis.url or TOOLWIRE_REDIS_URL; ${GET_503} until they are right`,
  },
  no_permission: {
    outage: true,
    dropConnection: false,
    message: `The Redis user may not run a command Toolwire needs (NOPERM): allow INFO, EVAL, EVALSHA, MGET, ZREM and, inside its scripts, TIME, reads and writes of strings, hashes and sorted sets and the key commands DEL, EXISTS, TYPE, PEXPIRE and PTTL, on the keys under state.redis.keyPrefix; ${GET_503} until it may`,
  },
  wrong_type: {
    outage: false,
    dropConnection: false,
    message: 'A Redis key under Toolwire\'s prefix holds a value of another type (WRONGTYPE): another program writes there; give Toolwire a prefix of its own (state.redis.keyPrefix). Requests that use that key get 503',
  },
  foreign_value: {
    outage: false,
    dropConnection: false,
    message: "A Redis key under Toolwire's prefix holds a value Toolwire did not write (not a stored turn): it is ignored, as if the turn had lapsed; give Toolwire a prefix of its own (state.redis.keyPrefix)",
  },
  not_redis: {
    outage: true,
    dropConnection: true,
    message: `What answers at the Redis URL does not speak Redis's protocol (or sent a reply Toolwire cannot use): the connection is re-opened and ${GET_503} until a Redis answers`,
  },
  tls_failed: {
    outage: true,
    dropConnection: false,
    message: `The TLS connection to Redis failed (a certificate not trusted or not for this host, or no TLS on that port): check the rediss:// URL's host and port and the server's certificate (NODE_EXTRA_CA_CERTS adds a private CA); ${GET_503} until it succeeds`,
  },
  error: { outage: false, dropConnection: false, message: 'Redis answered a command with an error: the request gets 503' },
};

/** Redis's own error codes (the first word of an error reply) that name a failure (a Map: the word comes from the server). */
const REPLY_CODES: ReadonlyMap<string, RedisFailureKind> = new Map([
  ['BUSY', 'busy'],
  ['LOADING', 'loading'],
  ['OOM', 'out_of_memory'],
  ['READONLY', 'read_only'],
  ['MASTERDOWN', 'primary_down'],
  ['NOREPLICAS', 'too_few_replicas'],
  ['MISCONF', 'cannot_persist'],
  ['NOAUTH', 'auth_required'],
  ['WRONGPASS', 'auth_failed'],
  ['NOPERM', 'no_permission'],
  ['WRONGTYPE', 'wrong_type'],
]);

/** Node's socket errors that mean the server could not be reached or the connection broke. */
const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/** Node's certificate verification codes (OpenSSL's names); TLS protocol errors have `ERR_SSL_`/`ERR_TLS_` codes. */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

function isTlsCode(code: string): boolean {
  return CERTIFICATE_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
}

/** The message of an error the state raises itself when a reply does not have the shape its script returns. */
export const UNEXPECTED_REPLY = 'Unexpected reply from Redis';
/** The message of an error the state raises itself when one reply outgrows `maxReplyBytes`. */
export const REPLY_TOO_LARGE = 'Reply from Redis too large';

function firstWord(text: string): string {
  const space = text.indexOf(' ');
  return space === -1 ? text : text.slice(0, space);
}

/**
 * An ACL refusal inside a script is not NOPERM but an ERR, worded by version: Redis 7.0
 * "ERR The user executing the script can't run this command or subcommand" (or "can't
 * access at least one of the keys …"); Redis 7.2 and later and Valkey "ERR ACL failure in
 * script: User … has no permissions to run the 'time' command" (or "… to access a key").
 */
function isAclRefusalInScript(message: string): boolean {
  return message.startsWith('ERR The user executing the script ') || message.startsWith('ERR ACL failure in script') || message.startsWith('The user executing the script ');
}

const WRAPPED_BY_REDIS_6 = 'ERR Error running script (call to ';

/**
 * The error a command inside a script met, as Redis 6 reports it: wrapped in "ERR Error
 * running script (call to f_…): @user_script:1: " and, for a refusal Redis raises itself,
 * "@user_script: 1: -" (`-OOM command not allowed …`, `-READONLY …`). Redis 7 and later
 * send the command's own error. Any other message is returned as it is.
 */
function unwrapRedis6ScriptError(message: string): string {
  if (!message.startsWith(WRAPPED_BY_REDIS_6)) return message;
  const end = message.indexOf('): ', WRAPPED_BY_REDIS_6.length);
  if (end === -1) return message;
  let at = end + 3;
  // Up to two locations, each "@source:line: " or "@source: line: ".
  for (let round = 0; round < 2 && message[at] === '@'; round++) {
    const colon = message.indexOf(':', at);
    if (colon === -1) break;
    let next = colon + 1;
    if (message[next] === ' ') next++;
    const digits = next;
    while (next < message.length && message.charCodeAt(next) >= 48 && message.charCodeAt(next) <= 57) next++;
    if (next === digits || message[next] !== ':' || message[next + 1] !== ' ') break;
    at = next + 2;
  }
  if (message[at] === '-') at++;
  return message.slice(at).trim();
}

/** A failure for an error ioredis (or the state itself) raised; unknown errors are `error`. */
export function classifyRedisFailure(error: unknown): RedisFailure {
  return redisFailure(failureKind(error));
}

function failureKind(error: unknown): RedisFailureKind {
  if (!(error instanceof Error)) return 'error';
  const message = unwrapRedis6ScriptError(error.message);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return 'unreachable';
  if (typeof code === 'string' && isTlsCode(code)) return 'tls_failed';
  const fromReply = REPLY_CODES.get(firstWord(message));
  if (fromReply !== undefined) return fromReply;
  if (message === 'Command timed out') return 'timeout';
  if (isAclRefusalInScript(message)) return 'no_permission';
  if (message.startsWith(UNEXPECTED_REPLY) || message.startsWith(REPLY_TOO_LARGE) || message.startsWith('Unknown RESP type')) return 'not_redis';
  if (
    message === 'Connection is closed.' ||
    message.startsWith('connection closed') ||
    message.startsWith("Stream isn't writeable") ||
    message.startsWith('Reached the max retries per request limit') ||
    message.startsWith('Command aborted due to connection close') ||
    message.startsWith('connect ')
  ) {
    return 'unreachable';
  }
  return 'error';
}

/** The failure of a kind the state detects itself (a value that is not a turn). */
export function redisFailure(kind: RedisFailureKind): RedisFailure {
  return { kind, ...FAILURES[kind] };
}
