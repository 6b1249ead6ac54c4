import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

import { ToolwireError } from '@toolwire/core';

import { InsecureTokenPathError, NotSignedInError } from '../chatgpt-errors.ts';
import { parseAuthFile, serializeAuthFile } from './auth-file.ts';
import type { ChatGPTTokens, StoredSignIn } from './auth-file.ts';
import { withFileLock } from './file-lock.ts';
import type { FileLockTimes } from './file-lock.ts';

/** Where a sign-in is kept: Toolwire's own file, Codex's `auth.json`, or memory. */
export type TokenStoreKind = 'toolwire' | 'codex' | 'memory';

/** Loads and saves one sign-in, and serialises refreshes across processes. */
export interface TokenStore {
  readonly kind: TokenStoreKind;
  /** The file, for messages and `whoami` (not for memory stores). */
  readonly path: string | undefined;
  /** False for a Codex sign-in read without write-back: it is never refreshed or deleted. */
  readonly writable: boolean;
  load(): Promise<StoredSignIn | undefined>;
  save(signIn: StoredSignIn): Promise<void>;
  /** Checks (and creates) the place the sign-in will be saved, before a sign-in starts. */
  prepare(): Promise<void>;
  /** Deletes the sign-in; true when there was one. */
  remove(): Promise<boolean>;
  /**
   * Runs `fn` holding the store's lock (a lock file next to the token file). `fn` gets a
   * signal that aborts when the lock is lost or `signal` aborts.
   */
  withLock<T>(fn: (lockSignal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** `~/.toolwire/chatgpt-auth.json`. */
export function defaultToolwireAuthPath(): string {
  return join(homedir(), '.toolwire', 'chatgpt-auth.json');
}

/** `$CODEX_HOME` (default `~/.codex`). */
export function defaultCodexHome(): string {
  const fromEnv = process.env.CODEX_HOME;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.codex');
}

/** Options of `createFileTokenStore`. */
export interface FileTokenStoreOptions {
  path: string;
  kind: 'toolwire' | 'codex';
  writable: boolean;
  /** Timing of the cross-process lock. */
  lock?: FileLockTimes;
  /** Told when the store changed something the user should know about (a directory's mode). */
  onNotice?: (message: string) => void;
}

/**
 * A token file: read whole, written to a temporary file with mode 0600 and renamed over
 * the old one (so a reader never sees half a file), guarded by `<file>.lock`, in a
 * directory no other user can write to.
 */
export function createFileTokenStore(options: FileTokenStoreOptions): TokenStore {
  const { path, kind, writable } = options;
  const lockPath = `${path}.lock`;
  const prepareDirectory = () => ensurePrivateDirectory(dirname(path), options.onNotice);
  return {
    kind,
    path,
    writable,
    async load() {
      // Codex rewrites its auth.json in place (truncate, then write): a read can catch it
      // empty or half written, so a file that is not a whole JSON object is read again.
      for (let attempt = 1; ; attempt++) {
        const text = await readTokenFile(path, kind, writable, options.onNotice);
        if (text === undefined) return undefined;
        if (isJsonObject(text)) return parseAuthFile(text);
        if (attempt >= DAMAGED_FILE_READS) throw damagedFile(path, kind, text);
        await sleep(DAMAGED_FILE_WAIT_MS);
      }
    },
    prepare: prepareDirectory,
    async save(signIn) {
      if (!writable) throw new ToolwireError(`The sign-in at ${path} is read-only here; pass codexWriteBack: true to update it.`);
      await prepareDirectory();
      // A symlinked file (dotfiles, a shared Codex home) is written where the link points:
      // replacing the link would leave its target with a refresh token that is now dead.
      const target = await symlinkTarget(path);
      if (target !== path) await ensurePrivateDirectory(dirname(target), options.onNotice);
      const temporary = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temporary, serializeAuthFile(signIn), { mode: 0o600, flag: 'wx' });
        // The mode given to open() is masked by the umask; make sure it is 0600.
        await chmod(temporary, 0o600);
        await rename(temporary, target);
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
      }
    },
    async remove() {
      try {
        await unlink(path);
        return true;
      } catch (error) {
        if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT') return false;
        throw error;
      }
    },
    async withLock(fn, signal) {
      await prepareDirectory();
      return withFileLock(lockPath, fn, { ...options.lock, ...(signal ? { signal } : {}) });
    },
  };
}

/** Reads of a file that is not a whole JSON object before it counts as damaged, and the wait between them. */
const DAMAGED_FILE_READS = 3;
const DAMAGED_FILE_WAIT_MS = 50;

/**
 * The token file's text, or `undefined` when there is none. A file other users can read is
 * tightened to 0600 when it is ours to write (and `onNotice` says so), else reported.
 */
async function readTokenFile(path: string, kind: 'toolwire' | 'codex', writable: boolean, onNotice?: (message: string) => void): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw unreadableFile(path, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new ToolwireError(
        `The ChatGPT sign-in path ${path} is ${info.isDirectory() ? 'a directory' : 'not a regular file'}, not a token file. Remove it, or point the \`path\` option (TOOLWIRE_CHATGPT_AUTH_FILE) at a file.`,
      );
    }
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
      if (writable) {
        await handle.chmod(0o600);
        onNotice?.(`The ChatGPT token file ${path} could be read by other users (mode ${mode}); Toolwire changed it to 0600.`);
      } else {
        onNotice?.(`The ${kind === 'codex' ? 'Codex ' : ''}token file ${path} can be read by other users (mode ${mode}); run \`chmod 600 ${path}\`.`);
      }
    }
    return await handle.readFile({ encoding: 'utf8' });
  } catch (error) {
    if (ToolwireError.isInstance(error)) throw error;
    throw unreadableFile(path, error);
  } finally {
    await handle.close();
  }
}

function unreadableFile(path: string, error: unknown): ToolwireError {
  const code = errnoOf(error);
  return new ToolwireError(
    `Cannot read the ChatGPT sign-in file ${path}${code !== undefined ? ` (${code})` : ''}. Check that it is a file you can read, or point the \`path\` option at another one.`,
    { cause: error },
  );
}

function damagedFile(path: string, kind: 'toolwire' | 'codex', text: string): NotSignedInError {
  const what = text.trim() === '' ? 'empty' : 'not a JSON object';
  return new NotSignedInError({
    message:
      kind === 'codex'
        ? `Codex's sign-in file ${path} is damaged (${what}): run \`codex login\` again, or sign in here with \`toolwire login chatgpt\`.`
        : `The ChatGPT sign-in file ${path} is damaged (${what}): sign in again with \`toolwire login chatgpt\`, which replaces it.`,
  });
}

function isJsonObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** Where `path` leads when it is a symlink (to be written there); `path` itself otherwise. */
async function symlinkTarget(path: string): Promise<string> {
  try {
    if (!(await lstat(path)).isSymbolicLink()) return path;
    return await realpath(path);
  } catch {
    // No file yet, or a dangling link: written at the path.
    return path;
  }
}

function errnoOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** A sign-in held in memory only (tokens passed in by the caller); refreshes stay in memory. */
export function createMemoryTokenStore(tokens: ChatGPTTokens, lastRefresh?: number): TokenStore {
  let current: StoredSignIn | undefined = { tokens, raw: {}, ...(lastRefresh !== undefined ? { lastRefresh } : {}) };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    kind: 'memory',
    path: undefined,
    writable: true,
    load() {
      return Promise.resolve(current);
    },
    save(signIn) {
      current = signIn;
      return Promise.resolve();
    },
    prepare() {
      return Promise.resolve();
    },
    remove() {
      const had = current !== undefined;
      current = undefined;
      return Promise.resolve(had);
    },
    withLock<T>(fn: (lockSignal: AbortSignal) => Promise<T>, signal?: AbortSignal) {
      const start = () => fn(signal ?? new AbortController().signal);
      const run = queue.then(start, start);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/**
 * Creates the token directory (mode 0700) or checks the existing one. Anyone who can write
 * to it can replace the token file or its lock. A world-writable directory of this user
 * is tightened to 0700 (and `onNotice` says so); one of another user, or a shared sticky
 * directory such as `/tmp`, is refused.
 */
export async function ensurePrivateDirectory(directory: string, onNotice?: (message: string) => void): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  // Mode bits and owners mean nothing on Windows; ACLs there are the user's profile's.
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return;
  const info = await stat(directory);
  if ((info.mode & 0o002) === 0) return;
  const mode = (info.mode & 0o7777).toString(8).padStart(4, '0');
  const sticky = (info.mode & 0o1000) !== 0;
  if (info.uid !== process.getuid() || sticky) {
    throw new InsecureTokenPathError({
      directory,
      message:
        `Refusing to keep ChatGPT tokens in ${directory}: other users can write to it (mode ${mode}${sticky ? ', a shared directory' : ''}), ` +
        'so they could replace the token file or its lock. Choose a path inside a directory only you can write to (the `path` option, or TOOLWIRE_CHATGPT_AUTH_FILE).',
    });
  }
  await chmod(directory, 0o700);
  onNotice?.(`The token directory ${directory} was writable by every user (mode ${mode}); Toolwire changed it to 0700 before saving the ChatGPT sign-in.`);
}
