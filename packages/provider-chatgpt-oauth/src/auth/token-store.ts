import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

import { ToolwireError } from '@toolwire/core';

import { parseAuthFile, serializeAuthFile } from './auth-file.ts';
import type { ChatGPTTokens, StoredSignIn } from './auth-file.ts';
import { withFileLock } from './file-lock.ts';

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
  /** Deletes the sign-in; true when there was one. */
  remove(): Promise<boolean>;
  /** Runs `fn` holding the store's lock (a lock file next to the token file). */
  withLock<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
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

/**
 * A token file: read whole, written to a temporary file with mode 0600 and renamed over
 * the old one (so a reader never sees half a file), guarded by `<file>.lock`.
 */
export function createFileTokenStore(options: { path: string; kind: 'toolwire' | 'codex'; writable: boolean }): TokenStore {
  const { path, kind, writable } = options;
  const lockPath = `${path}.lock`;
  return {
    kind,
    path,
    writable,
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT') return undefined;
        throw error;
      }
      return parseAuthFile(text);
    },
    async save(signIn) {
      if (!writable) throw new ToolwireError(`The sign-in at ${path} is read-only here; pass codexWriteBack: true to update it.`);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temporary, serializeAuthFile(signIn), { mode: 0o600, flag: 'wx' });
        // The mode given to open() is masked by the umask; make sure it is 0600.
        await chmod(temporary, 0o600);
        await rename(temporary, path);
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
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      return withFileLock(lockPath, fn, signal ? { signal } : {});
    },
  };
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
    remove() {
      const had = current !== undefined;
      current = undefined;
      return Promise.resolve(had);
    },
    withLock<T>(fn: () => Promise<T>) {
      const run = queue.then(fn, fn);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
