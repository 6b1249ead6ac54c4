import { randomUUID } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { chmod, lstat, open, opendir, rename, rm, rmdir, unlink } from 'node:fs/promises';
import type { Dir } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** What a work dir holds, as far as `measureWorkDir` counted before it passed a bound. */

/** Adds one entry of `blocks` allocated blocks to `usage`; true once a bound is passed (`usage.over` says which). */
function count(usage: WorkDirUsage, blocks: number, bounds: { maxBytes: number; maxEntries: number }): boolean {
  usage.entries++;
  usage.bytes += blocks * 512;
  if (usage.bytes > bounds.maxBytes) usage.over = 'bytes';
  else if (usage.entries > bounds.maxEntries) usage.over = 'entries';
  return usage.over !== undefined;
}
export interface WorkDirUsage {
  /** Disk space in use: allocated blocks, so a sparse file counts what it really takes. */
  bytes: number;
  /** Files, directories, links and anything else under the work dir. */
  entries: number;
  /**
   * The first bound passed, if any (counting stopped there): `depth` is a path longer than
   * the host can name (`MAX_PATH_BYTES`), `unreadable` a directory the host could not list
   * (made unreadable while the code ran, or not the host's to open). Neither can be measured,
   * so both count as over.
   */
  over: 'bytes' | 'entries' | 'depth' | 'unreadable' | undefined;
}

/** The owner's read, write and search bits: what the host needs to list and remove a directory. */
const OWNER_ALL = 0o700;

/**
 * Linux refuses a path of PATH_MAX (4096) bytes or more, and code can nest directories past it
 * with relative paths: what lies deeper could be neither measured nor removed by path.
 */
const MAX_PATH_BYTES = 4000;

/** Removal moves a directory whose path is longer than this up to the top, so that its children stay nameable (255-byte names). */
const MOVE_UP_PAST_BYTES = 2048;

// Paths are walked as latin1 strings, one character per byte, and handed to `fs` as the bytes
// they stand for: a name that is not UTF-8 (Python writes any bytes) would not survive a
// round trip through a UTF-8 string, and what it holds would go unseen and unremoved.
function bytes(path: string): Buffer {
  return Buffer.from(path, 'latin1');
}

function code(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function denied(error: unknown): boolean {
  return code(error) === 'EACCES' || code(error) === 'EPERM';
}

/** Reads a directory as a stream of entries (a directory of a million names is never one array in memory). */
function openDir(path: string): Promise<Dir> {
  return opendir(bytes(path), { encoding: 'latin1', bufferSize: 128 });
}

/** Options of `measureWorkDir`. */
export interface MeasureOptions {
  maxBytes: number;
  maxEntries: number;
  /**
   * The code is still running: no directory is given its bits back, since the code could
   * swap it for a symlink to a host directory between the check and the `chmod`; a directory
   * it made unreadable counts as `unreadable` (over) instead, and hides nothing.
   */
  codeRunning?: boolean;
}

/**
 * Adds up what `dir` holds, without following symlinks found in it (code in the sandbox could
 * plant one pointing anywhere on the host), at any depth, and stops as soon as the space passes
 * `maxBytes`, the entries pass `maxEntries`, a path gets too long to name or a directory cannot
 * be read: a tree of millions of empty files costs one walk of `maxEntries`. Once the code has
 * stopped, directories it made unreadable (`chmod 000`) are given their owner's bits back and
 * counted. Entries that vanish while it runs are skipped.
 */
export async function measureWorkDir(dir: string, options: MeasureOptions): Promise<WorkDirUsage> {
  if (options.codeRunning === true && hasProcFd()) {
    const usage = await measureRunningWorkDir(dir, options);
    if (usage !== undefined) return usage;
  }
  const usage: WorkDirUsage = { bytes: 0, entries: 0, over: undefined };
  const pending: string[] = [Buffer.from(dir).toString('latin1')];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let listing: Dir;
    try {
      listing = await openDir(current);
    } catch (error) {
      if (!denied(error)) continue; // gone, or swapped for something else meanwhile
      if (options.codeRunning === true) return { ...usage, over: 'unreadable' };
      try {
        await chmod(bytes(current), OWNER_ALL);
        listing = await openDir(current);
      } catch {
        return { ...usage, over: 'unreadable' };
      }
    }
    // (`for await` closes the directory when it is left early.)
    for await (const entry of listing) {
      const path = `${current}/${entry.name}`;
      if (path.length > MAX_PATH_BYTES) return { ...usage, over: 'depth' };
      const stats = await lstat(bytes(path)).catch(() => undefined);
      if (stats === undefined) continue;
      if (count(usage, stats.blocks, options)) return usage;
      if (stats.isDirectory()) pending.push(path);
    }
  }
  return usage;
}

let procFd: boolean | undefined;

/** Whether directories can be opened inside another's descriptor (`/proc/self/fd`: Linux, with /proc mounted). */
function hasProcFd(): boolean {
  procFd ??= process.platform === 'linux' && existsSync('/proc/self/fd');
  return procFd;
}

/** A directory being listed by `measureRunningWorkDir`: held open, so that its children are found in it whatever its path now names. */
interface OpenDirectory {
  handle: FileHandle;
  listing: Dir;
  /** Bytes of its path under the work dir's, for the `depth` bound. */
  length: number;
}

/**
 * Opens a directory without following a symlink in its last name, and lists it through its
 * descriptor. `path` is `/proc/self/fd/<parent>/<name>` for a child: the name is looked up in
 * the directory the parent's descriptor holds (an `openat`), not along a path code can change.
 */
async function openDirectory(path: string, length: number): Promise<OpenDirectory> {
  const handle = await open(bytes(path), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    return { handle, listing: await openDir(`/proc/self/fd/${handle.fd}`), length };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A directory the code swapped for a link or something else, or removed, since it was listed. */
function skipped(error: unknown): boolean {
  const found = code(error);
  return found === 'ELOOP' || found === 'ENOTDIR' || found === 'ENOENT';
}

async function closeDirectory(directory: OpenDirectory): Promise<void> {
  await directory.listing.close().catch(() => undefined);
  await directory.handle.close().catch(() => undefined);
}

/**
 * `measureWorkDir` while the code runs (Linux). A walk by path would follow a symlink the code
 * swaps in for a directory, or for any directory above one, between the host's `lstat` and its
 * listing, and so list and count host directories the sandbox cannot see (the quota's verdict
 * told the code whether one held more than a chosen number of entries). Here every directory
 * is opened with O_NOFOLLOW inside its parent's open descriptor: a swapped-in link is skipped.
 * What the code moves about while the walk runs may be missed; the measurement after it stops
 * sees everything. Undefined when a directory cannot be opened for another reason (out of
 * descriptors, with a tree thousands deep): then the path walk measures, rather than nothing.
 */
async function measureRunningWorkDir(dir: string, options: MeasureOptions): Promise<WorkDirUsage | undefined> {
  const usage: WorkDirUsage = { bytes: 0, entries: 0, over: undefined };
  const stack: OpenDirectory[] = [];
  try {
    try {
      stack.push(await openDirectory(Buffer.from(dir).toString('latin1'), 0));
    } catch (error) {
      return denied(error) ? { ...usage, over: 'unreadable' } : skipped(error) ? usage : undefined;
    }
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as OpenDirectory;
      const entry = await top.listing.read();
      if (entry === null) {
        await closeDirectory(top);
        stack.pop();
        continue;
      }
      const length = top.length + 1 + entry.name.length;
      if (length > MAX_PATH_BYTES) return { ...usage, over: 'depth' };
      const path = `/proc/self/fd/${top.handle.fd}/${entry.name}`;
      const stats = await lstat(bytes(path)).catch(() => undefined);
      if (stats === undefined) continue;
      if (count(usage, stats.blocks, options)) return usage;
      if (!stats.isDirectory()) continue;
      try {
        stack.push(await openDirectory(path, length));
      } catch (error) {
        // A link swapped in (ELOOP), or gone: skipped. Made unreadable: over, as by path.
        if (denied(error)) return { ...usage, over: 'unreadable' };
        if (!skipped(error)) return undefined;
      }
    }
    return usage;
  } finally {
    for (const directory of stack.splice(0).reverse()) await closeDirectory(directory);
  }
}

function ignoreMissing(error: unknown): void {
  if (code(error) !== 'ENOENT') throw error;
}

/**
 * Removes what `root` holds (and `root` itself unless `keepRoot`), with the code stopped: every
 * directory gets its owner's bits first (code may have made it unreadable or unwritable, which
 * stops a plain recursive `rm` as any user but root), symlinks are removed and never followed,
 * names that are not UTF-8 are removed by their bytes, and a directory nested so deep that its
 * children's paths would pass PATH_MAX is moved up to `root` first.
 */
async function removeTree(root: string, keepRoot: boolean): Promise<void> {
  const top = await lstat(bytes(root)).catch(() => undefined);
  if (top === undefined) return;
  if (!top.isDirectory()) {
    if (!keepRoot) await unlink(bytes(root)).catch(ignoreMissing);
    return;
  }
  // The work dir itself keeps its mode, with the owner's bits it needs to be emptied.
  await chmod(bytes(root), keepRoot ? (top.mode & 0o7777) | OWNER_ALL : OWNER_ALL).catch(() => undefined);
  const pending: { path: string; listed: boolean }[] = [{ path: root, listed: false }];
  while (pending.length > 0) {
    const current = pending.pop() as { path: string; listed: boolean };
    if (current.listed) {
      if (current.path !== root || !keepRoot) await rmdir(bytes(current.path)).catch(ignoreMissing);
      continue;
    }
    pending.push({ path: current.path, listed: true });
    if (current.path !== root) await chmod(bytes(current.path), OWNER_ALL).catch(ignoreMissing);
    let listing: Dir;
    try {
      listing = await openDir(current.path);
    } catch (error) {
      ignoreMissing(error);
      continue;
    }
    for await (const entry of listing) {
      let path = `${current.path}/${entry.name}`;
      const stats = await lstat(bytes(path)).catch(() => undefined);
      if (stats === undefined) continue;
      if (!stats.isDirectory()) {
        await unlink(bytes(path)).catch(ignoreMissing);
        continue;
      }
      if (path.length > MOVE_UP_PAST_BYTES) {
        const moved = `${root}/.toolwire-removing-${randomUUID()}`;
        await rename(bytes(path), bytes(moved));
        path = moved;
      }
      pending.push({ path, listed: false });
    }
  }
}

/**
 * Removes `path` and everything under it, once the code that wrote there has stopped. A plain
 * recursive `rm` first; what it cannot remove (directories made unreadable or unwritable, names
 * that are not UTF-8, trees deeper than PATH_MAX) is removed by `removeTree`.
 */
export async function removeWorkDirTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch {
    await removeTree(Buffer.from(path).toString('latin1'), false);
  }
}

/** Removes everything inside `dir`, once the code has stopped, keeping `dir` itself (its owner and mode, with the owner's bits). */
export async function emptyWorkDir(dir: string): Promise<void> {
  await removeTree(Buffer.from(dir).toString('latin1'), true);
}
