import { randomBytes } from 'node:crypto';
import { link, open, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { pause } from '../pause.ts';

import { ToolwireError } from '@toolwire/core';

/** Timing of a `withFileLock`. */
export interface FileLockTimes {
  /** Give up waiting for the lock after this long (default twice `staleMs`). */
  timeoutMs?: number;
  /**
   * A lock whose file has not been touched for this long is abandoned (its holder hung
   * or crashed) and may be taken over (default 60 s). A live holder touches it every
   * `heartbeatMs`, so however long it legitimately holds the lock, it never goes stale.
   */
  staleMs?: number;
  /** How often the holder touches the lock file (default `staleMs / 12`, at least 10 ms). */
  heartbeatMs?: number;
}

/** Options of `withFileLock`. */
export interface FileLockOptions extends FileLockTimes {
  signal?: AbortSignal;
}

/** The lock was lost while held (its holder stalled longer than `staleMs` and another process took it over). */
export class FileLockLostError extends ToolwireError {
  static override readonly errorName = 'FileLockLostError';
  static override isInstance(error: unknown): error is FileLockLostError {
    return this.hasMarker(error, FileLockLostError.errorName);
  }
}

/** The defaults, resolved in one place. */
export function resolveLockTimes(times: FileLockTimes = {}): Required<FileLockTimes> {
  const staleMs = times.staleMs ?? 60_000;
  return {
    staleMs,
    timeoutMs: times.timeoutMs ?? staleMs * 2,
    heartbeatMs: times.heartbeatMs ?? Math.max(10, Math.floor(staleMs / 12)),
  };
}

/**
 * Runs `fn` while holding a cross-process lock at `lockPath`, so that only one process at
 * a time does it.
 *
 * - Taking the lock is one atomic `link()` of a private, fully written file
 *   (`<lock>.<nonce>`) to `lockPath`: it fails with `EEXIST` while anyone holds it, and a
 *   reader never sees half a lock file.
 * - While held, the private file's mtime (shared with `lockPath`, same inode) is touched
 *   every `heartbeatMs`. `fn` gets a signal that aborts if the lock is lost anyway.
 * - A lock untouched for `staleMs`, or whose holder process is gone (same host), is taken
 *   over without a check-then-unlink race: the taker first creates
 *   `<lock>.takeover-<holder nonce>-<n>` exclusively, so exactly one process may remove
 *   that holder's lock; it re-checks that `lockPath` is still that holder's file, removes
 *   it, and then competes for the lock like everyone else. The holder itself releases
 *   through the same marker, so a late release never removes someone else's lock.
 */
export async function withFileLock<T>(lockPath: string, fn: (lockSignal: AbortSignal) => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const times = resolveLockTimes(options);
  const held = await acquire(lockPath, times, options.signal);
  const lost = new AbortController();
  const onAbort = (): void => lost.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const heartbeat = setInterval(() => {
    void touch(lockPath, held).then((owned) => {
      if (!owned && !lost.signal.aborted) {
        lost.abort(
          new FileLockLostError(
            `The lock ${lockPath} was taken over by another process while this one held it (this process stalled for more than ${times.staleMs} ms). The work under it was stopped.`,
          ),
        );
      }
    });
  }, times.heartbeatMs);
  heartbeat.unref();
  try {
    return await fn(lost.signal);
  } finally {
    clearInterval(heartbeat);
    options.signal?.removeEventListener('abort', onAbort);
    await release(lockPath, held);
  }
}

interface HeldLock {
  nonce: string;
  /** The private file hard-linked to the lock path while held. */
  ownPath: string;
  ino: number;
}

interface Holder {
  /** The holder's nonce, or the lock file's inode and mtime when it is not readable. */
  key: string;
  ino: number;
  mtimeMs: number;
  pid?: number;
  host?: string;
}

async function acquire(lockPath: string, times: Required<FileLockTimes>, signal: AbortSignal | undefined): Promise<HeldLock> {
  const nonce = randomBytes(12).toString('hex');
  const ownPath = `${lockPath}.${nonce}`;
  const handle = await open(ownPath, 'wx', 0o600);
  let ino: number;
  try {
    await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), nonce, at: new Date().toISOString() }));
    ino = (await handle.stat()).ino;
  } finally {
    await handle.close();
  }
  const deadline = Date.now() + times.timeoutMs;
  let wait = 10;
  try {
    for (;;) {
      signal?.throwIfAborted();
      try {
        // Fresh mtime first: after a long wait the private file is old, and the lock it
        // becomes must not look abandoned the moment it is taken.
        const now = new Date();
        await utimes(ownPath, now, now);
        await link(ownPath, lockPath);
        return { nonce, ownPath, ino };
      } catch (error) {
        if (isErrno(error, 'EPERM') || isErrno(error, 'ENOTSUP') || isErrno(error, 'EOPNOTSUPP')) {
          throw new ToolwireError(
            `The file system of ${lockPath} does not support hard links, which the sign-in lock needs. Keep the token file on a local disk (the \`path\` option).`,
            { cause: error },
          );
        }
        if (!isErrno(error, 'EEXIST')) throw error;
      }
      const holder = await readHolder(lockPath);
      // Removed a stale lock: try again at once. Another process removing it: wait below.
      if (holder !== undefined && isStale(holder, times.staleMs) && (await takeOver(lockPath, holder, times.staleMs))) continue;
      if (Date.now() > deadline) {
        throw new ToolwireError(
          `Timed out after ${times.timeoutMs} ms waiting for the lock ${lockPath}, which another live process holds. ` +
            'If no other Toolwire process is signing in or refreshing, delete that file and try again.',
        );
      }
      await pause(wait + Math.floor(Math.random() * wait), signal);
      wait = Math.min(wait * 2, 100);
    }
  } catch (error) {
    await unlink(ownPath).catch(() => undefined);
    throw error;
  }
}

/** Reads who holds the lock, from one open file (content and inode of the same file). */
async function readHolder(lockPath: string): Promise<Holder | undefined> {
  let handle;
  try {
    handle = await open(lockPath, 'r');
  } catch {
    return undefined; // released meanwhile
  }
  try {
    const info = await handle.stat();
    const text = await handle.readFile({ encoding: 'utf8' });
    const holder: Holder = { key: `ino${info.ino}-${Math.floor(info.mtimeMs)}`, ino: info.ino, mtimeMs: info.mtimeMs };
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) {
        const record = parsed as Record<string, unknown>;
        if (typeof record.nonce === 'string' && isHex(record.nonce)) holder.key = record.nonce;
        if (typeof record.pid === 'number') holder.pid = record.pid;
        if (typeof record.host === 'string') holder.host = record.host;
      }
    } catch {
      // Not ours or damaged: identified by inode and mtime, stale only by age.
    }
    return holder;
  } finally {
    await handle.close();
  }
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (Date.now() - holder.mtimeMs > staleMs) return true;
  // A pid means something only on the host that wrote it (a home directory on NFS is shared).
  const sameHost = holder.host === undefined || holder.host === hostname();
  return sameHost && holder.pid !== undefined && holder.pid !== process.pid && !isAlive(holder.pid);
}

/** Removes `holder`'s lock if this process wins the right to; false when another process does. */
async function takeOver(lockPath: string, holder: Holder, staleMs: number): Promise<boolean> {
  const marker = await claimMarker(lockPath, holder.key, staleMs);
  if (marker === undefined) return false;
  try {
    const current = await readHolder(lockPath);
    // Only this process may remove `holder`'s lock now, so if the lock path still is
    // that file it stays so until the unlink below.
    if (current !== undefined && current.key === holder.key && current.ino === holder.ino) {
      await unlink(lockPath).catch(() => undefined);
      if (isHex(holder.key)) await unlink(`${lockPath}.${holder.key}`).catch(() => undefined);
    }
    return true;
  } finally {
    await unlink(marker).catch(() => undefined);
  }
}

/**
 * Creates the takeover marker for `key` exclusively. A marker left by a taker that died
 * between creating it and removing the lock (older than `staleMs`) is skipped by moving
 * to the next generation, which again only one process can create.
 */
async function claimMarker(lockPath: string, key: string, staleMs: number): Promise<string | undefined> {
  for (let generation = 1; generation <= 8; generation++) {
    const marker = `${lockPath}.takeover-${key}-${generation}`;
    try {
      await (await open(marker, 'wx', 0o600)).close();
      return marker;
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
    }
    const info = await stat(marker).catch(() => undefined);
    if (info === undefined || Date.now() - info.mtimeMs <= staleMs) return undefined;
  }
  return undefined;
}

/** Touches the held lock; false when the lock path is no longer this holder's file. */
async function touch(lockPath: string, held: HeldLock): Promise<boolean> {
  try {
    const now = new Date();
    await utimes(held.ownPath, now, now);
    return (await stat(lockPath)).ino === held.ino;
  } catch {
    return false;
  }
}

async function release(lockPath: string, held: HeldLock): Promise<void> {
  // Release through the takeover marker: if a taker holds it, it removes the lock.
  const marker = await claimMarker(lockPath, held.nonce, Number.POSITIVE_INFINITY).catch(() => undefined);
  try {
    if (marker !== undefined) {
      const current = await stat(lockPath).catch(() => undefined);
      if (current?.ino === held.ino) await unlink(lockPath).catch(() => undefined);
    }
  } finally {
    await unlink(held.ownPath).catch(() => undefined);
    if (marker !== undefined) await unlink(marker).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM');
  }
}

function isHex(text: string): boolean {
  if (text.length === 0 || text.length > 64) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 102))) return false;
  }
  return true;
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
