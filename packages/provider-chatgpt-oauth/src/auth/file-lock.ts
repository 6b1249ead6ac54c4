import { randomBytes } from 'node:crypto';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

import { ToolwireError } from '@toolwire/core';

/** Options of `withFileLock`. */
export interface FileLockOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** A lock file older than this is taken over (default 30 s): its holder hung or crashed. */
  staleMs?: number;
  signal?: AbortSignal;
}

/**
 * Runs `fn` while holding a lock file (created exclusively with `O_EXCL`), so that only
 * one process at a time does it. A lock left by a dead process or older than `staleMs`
 * is taken over.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const nonce = randomBytes(12).toString('hex');
  await acquire(lockPath, nonce, options);
  try {
    return await fn();
  } finally {
    await release(lockPath, nonce);
  }
}

async function acquire(lockPath: string, nonce: string, options: FileLockOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, nonce, at: new Date().toISOString() }));
      } finally {
        await handle.close();
      }
      return;
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
    }
    if (await isStale(lockPath, staleMs)) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new ToolwireError(
        `Timed out after ${timeoutMs} ms waiting for the lock ${lockPath}. ` +
          'If no other Toolwire process is signing in or refreshing, delete that file and try again.',
      );
    }
    await sleep(wait + Math.floor(Math.random() * wait));
    wait = Math.min(wait * 2, 100);
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const info = await stat(lockPath);
    if (Date.now() - info.mtimeMs > staleMs) return true;
    const holder: unknown = JSON.parse(await readFile(lockPath, 'utf8'));
    const pid = typeof holder === 'object' && holder !== null && 'pid' in holder ? holder.pid : undefined;
    return typeof pid === 'number' && pid !== process.pid && !isAlive(pid);
  } catch {
    // Vanished (released meanwhile) or half-written by its creator: not stale, retry.
    return false;
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

async function release(lockPath: string, nonce: string): Promise<void> {
  try {
    const holder = await readFile(lockPath, 'utf8');
    if (holder.includes(nonce)) await unlink(lockPath);
  } catch {
    // Already gone: nothing to release.
  }
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
