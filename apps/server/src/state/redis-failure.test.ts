import { describe, expect, it } from 'vitest';
import { classifyRedisFailure, REPLY_TOO_LARGE, UNEXPECTED_REPLY } from './redis-failure.ts';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('classifyRedisFailure', () => {
  it.each([
    ["OOM command not allowed when used memory > 'maxmemory'. script: 2617fe, on @user_script:17.", 'out_of_memory', true],
    ["READONLY You can't write against a read only replica.", 'read_only', true],
    ['BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.', 'busy', true],
    ['LOADING Redis is loading the dataset in memory', 'loading', true],
    ["MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", 'primary_down', true],
    ['NOREPLICAS Not enough good replicas to write.', 'too_few_replicas', true],
    ["MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.", 'cannot_persist', true],
    ['NOAUTH Authentication required.', 'auth_required', true],
    ['WRONGPASS invalid username-password pair or user is disabled.', 'auth_failed', true],
    ["NOPERM User app has no permissions to run the 'evalsha' command", 'no_permission', true],
    ["ERR The user executing the script can't run this command or subcommand script: 2617fe, on @user_script:1.", 'no_permission', true],
    ["ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: 2617fe, on @user_script:3.", 'no_permission', true],
    ["ERR ACL failure in script: User tw has no permissions to run the 'time' command script: 2617fe, on @user_script:1.", 'no_permission', true],
    ['ERR ACL failure in script: No permissions to access a key script: 2617fe, on @user_script:3.', 'no_permission', true],
    // Redis 6 wraps every error met inside a script (its scripting.c: the error handler's location, then luaPushError's).
    ["ERR Error running script (call to f_2617fe): @user_script:5: @user_script: 5: -OOM command not allowed when used memory > 'maxmemory'.", 'out_of_memory', true],
    ['ERR Error running script (call to f_2617fe): @user_script:5: @user_script: 5: -READONLY You can\'t write against a read only replica.', 'read_only', true],
    ['ERR Error running script (call to f_2617fe): @user_script:2: @user_script: 2: -NOREPLICAS Not enough good replicas to write.', 'too_few_replicas', true],
    ["ERR Error running script (call to f_2617fe): @user_script:1: @user_script: 1: The user executing the script can't run this command or subcommand", 'no_permission', true],
    ['ERR Error running script (call to f_2617fe): @user_script:5: WRONGTYPE Operation against a key holding the wrong kind of value', 'wrong_type', false],
    ['ERR Error running script (call to f_2617fe): @user_script:5: user_script:5: Script attempted to access nonexistent global variable', 'error', false],
    ['ERR Error running script (call to f_2617fe', 'error', false],
    ['WRONGTYPE Operation against a key holding the wrong kind of value script: 2617fe, on @user_script:5.', 'wrong_type', false],
    ['ERR unknown command', 'error', false],
  ] as const)('reads Redis\'s error code: %s', (message, kind, outage) => {
    expect(classifyRedisFailure(new Error(message))).toMatchObject({ kind, outage, dropConnection: false });
  });

  it('drops the connection for a command left unanswered and for bytes that are not Redis', () => {
    expect(classifyRedisFailure(new Error('Command timed out'))).toMatchObject({ kind: 'timeout', outage: true, dropConnection: true });
    for (const message of ['Unknown RESP type 72 "H". Please report this.', `${UNEXPECTED_REPLY}: MGET`, `${REPLY_TOO_LARGE}: over 1024 bytes`]) {
      expect(classifyRedisFailure(new Error(message))).toMatchObject({ kind: 'not_redis', outage: true, dropConnection: true });
    }
  });

  it('names TLS for certificate and handshake failures', () => {
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO']) {
      expect(classifyRedisFailure(withCode('x', code)), code).toMatchObject({ kind: 'tls_failed', outage: true, dropConnection: false });
    }
    expect(classifyRedisFailure(new Error('connection closed before Redis answered (…)')).kind).toBe('unreachable');
  });

  it('calls a refused, reset or closed connection unreachable', () => {
    expect(classifyRedisFailure(withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED')).kind).toBe('unreachable');
    expect(classifyRedisFailure(withCode('read ECONNRESET', 'ECONNRESET')).kind).toBe('unreachable');
    expect(classifyRedisFailure(new Error('Connection is closed.')).kind).toBe('unreachable');
    expect(classifyRedisFailure(new Error("Stream isn't writeable and enableOfflineQueue options is false")).kind).toBe('unreachable');
    expect(classifyRedisFailure(new Error('Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.')).kind).toBe('unreachable');
  });

  it('names Redis and the way out in every log line', () => {
    for (const message of ['OOM x', 'READONLY x', 'BUSY x', 'NOAUTH x', 'WRONGPASS x', 'Command timed out', 'connection closed']) {
      expect(classifyRedisFailure(new Error(message)).message).toContain('Redis');
    }
    expect(classifyRedisFailure(new Error('NOAUTH Authentication required.')).message).toContain('TOOLWIRE_REDIS_URL');
    expect(classifyRedisFailure('not an error')).toMatchObject({ kind: 'error', outage: false });
    // The first word comes from the server: an object's own keys are not codes.
    expect(classifyRedisFailure(new Error('constructor x'))).toMatchObject({ kind: 'error', outage: false });
    expect(classifyRedisFailure(new Error('__proto__ x'))).toMatchObject({ kind: 'error', outage: false });
  });
});
