import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** What a work dir holds, as far as `measureWorkDir` counted before it passed a bound. */
export interface WorkDirUsage {
  /** Disk space in use: allocated blocks, so a sparse file counts what it really takes. */
  bytes: number;
  /** Files, directories, links and anything else under the work dir. */
  entries: number;
  /** The first bound passed, if any (counting stopped there). */
  over: 'bytes' | 'entries' | undefined;
}

/** The owner's read, write and search bits: what the host needs to list and remove a directory. */
const OWNER_ALL = 0o700;

function code(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * Reads a directory's entries; one that sandboxed code made unreadable (`chmod 000`) is given
 * back its owner's bits first. The work dir's contents belong to the host user (bubblewrap maps
 * the sandbox's user to it) or, as root, are readable anyway; code cannot hide space that way.
 */
async function entriesOf(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if (code(error) !== 'EACCES' && code(error) !== 'EPERM') return [];
    try {
      await chmod(path, OWNER_ALL);
      return await readdir(path);
    } catch {
      return [];
    }
  }
}

/**
 * Adds up what `dir` holds, without following symlinks (code in the sandbox could plant one
 * pointing anywhere on the host), at any depth, and stops as soon as the space passes
 * `maxBytes` or the entries pass `maxEntries`: a tree of millions of empty files costs one
 * walk of `maxEntries`. Entries that vanish while it runs are skipped.
 */
export async function measureWorkDir(dir: string, bounds: { maxBytes: number; maxEntries: number }): Promise<WorkDirUsage> {
  const usage: WorkDirUsage = { bytes: 0, entries: 0, over: undefined };
  const pending: string[] = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    for (const name of await entriesOf(current)) {
      const path = join(current, name);
      const stats = await lstat(path).catch(() => undefined);
      if (stats === undefined) continue;
      usage.entries++;
      usage.bytes += stats.blocks * 512;
      if (usage.bytes > bounds.maxBytes) usage.over = 'bytes';
      else if (usage.entries > bounds.maxEntries) usage.over = 'entries';
      if (usage.over !== undefined) return usage;
      if (stats.isDirectory()) pending.push(path);
    }
  }
  return usage;
}

/**
 * Gives every directory under `dir` (and `dir`) its owner's bits back, without following
 * symlinks, so that the host can remove what sandboxed code left, even after a `chmod 000`.
 */
async function makeRemovable(dir: string): Promise<void> {
  const pending: string[] = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    await chmod(current, OWNER_ALL).catch(() => undefined);
    for (const name of await entriesOf(current)) {
      const path = join(current, name);
      const stats = await lstat(path).catch(() => undefined);
      if (stats?.isDirectory() === true) pending.push(path);
    }
  }
}

/**
 * Removes `path` and everything under it. Directories code in the sandbox made unwritable or
 * unreadable would make a plain recursive `rm` fail as any user but root, leaving the files on
 * the host's disk for good: their owner's bits are restored first, then it is removed again.
 */
export async function removeWorkDirTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    if (code(error) !== 'EACCES' && code(error) !== 'EPERM' && code(error) !== 'ENOTEMPTY') throw error;
    await makeRemovable(path);
    await rm(path, { recursive: true, force: true });
  }
}

/** Removes everything inside `dir`, keeping `dir` itself (its owner and mode as they were). */
export async function emptyWorkDir(dir: string): Promise<void> {
  for (const name of await entriesOf(dir)) await removeWorkDirTree(join(dir, name));
}
