import { chown, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { emitEvent } from '../events.ts';
import type { CodeInterpreterEventHandler } from '../events.ts';
import { removeWorkDirTree } from './work-dir-usage.ts';

/** One conversation's work directory. */
export interface WorkDir {
  /** `local:<id>`, reported as the result's `containerId`. */
  containerId: string;
  path: string;
}

/** A run's hold on its conversation's work dir. */
export interface HeldWorkDir extends WorkDir {
  /** Lets the next run of the conversation in, and starts the idle timer if none waits. */
  release(): void;
}

interface Session extends WorkDir {
  key: string;
  /** Taken out of the map to be removed: no idle timer for it any more. */
  removed: boolean;
  busy: number;
  timer: NodeJS.Timeout | undefined;
  /** Settles when the runs queued so far have released the work dir. */
  queue: Promise<void>;
  /** Releases of the runs holding or waiting for the work dir, oldest first. */
  releases: (() => void)[];
}

/** Options of `createWorkDirSessions`. */
export interface WorkDirSessionsOptions {
  /** Parent directory of the work dirs. */
  root: string;
  /** Remove a work dir after this long without a run. */
  idleTimeoutMs: number;
  /** Host uid (and gid) to give each new work dir to, when the sandbox runs code as another uid; asked at each creation. */
  ownerUid?: () => number | undefined;
  onEvent?: CodeInterpreterEventHandler;
}

/**
 * Work directories keyed by conversation: created on first use, kept while the
 * conversation runs code, removed after `idleTimeoutMs` without a run (never during one).
 * Runs of one conversation take turns, so each run's list of new files is its own.
 */
export interface WorkDirSessions {
  /** The work dir of `key`, created if needed, once earlier runs of `key` released it; call its `release` when the run ends. */
  acquire(key: string): Promise<HeldWorkDir>;
  /**
   * Removes every work dir, each once the runs holding or waiting for it have released it:
   * removing a tree while sandboxed code still writes in it lets the code swap a directory
   * for a symlink under the host's walk, which then unlinks or chmods what the link points at.
   */
  dispose(): Promise<void>;
}

/** Creates the work-dir manager of a local interpreter. */
export function createWorkDirSessions(options: WorkDirSessionsOptions): WorkDirSessions {
  const { root, idleTimeoutMs, onEvent } = options;
  const sessions = new Map<string, Promise<Session>>();

  async function remove(key: string, reason: 'idle' | 'disposed'): Promise<void> {
    const pending = sessions.get(key);
    if (pending === undefined) return;
    sessions.delete(key);
    const session = await pending;
    session.removed = true;
    if (session.timer !== undefined) clearTimeout(session.timer);
    await session.queue;
    await removeWorkDirTree(session.path);
    emitEvent(onEvent, { type: 'work-dir-removed', containerId: session.containerId, reason });
  }

  function schedule(key: string, session: Session): void {
    if (session.timer !== undefined) clearTimeout(session.timer);
    session.timer = setTimeout(() => {
      if (session.busy === 0) {
        remove(key, 'idle').catch(() => {
          // Already gone or not removable; nothing a timer could do about it.
        });
      }
    }, idleTimeoutMs);
    // An idle work dir must not keep the process alive.
    session.timer.unref();
  }

  return {
    async acquire(key) {
      let pending = sessions.get(key);
      if (pending === undefined) {
        pending = (async () => {
          const path = await mkdtemp(join(root, 'toolwire-ci-'));
          const owner = options.ownerUid?.();
          if (owner !== undefined) await chown(path, owner, owner);
          const id = path.slice(path.lastIndexOf('toolwire-ci-') + 'toolwire-ci-'.length);
          return { containerId: `local:${id}`, path, key, removed: false, busy: 0, timer: undefined, queue: Promise.resolve(), releases: [] };
        })();
        sessions.set(key, pending);
      }
      const session = await pending;
      session.busy++;
      if (session.timer !== undefined) clearTimeout(session.timer);
      const previous = session.queue;
      let release: () => void = () => undefined;
      session.queue = new Promise<void>((resolve) => {
        release = resolve;
      });
      session.releases.push(release);
      await previous;
      let released = false;
      return {
        containerId: session.containerId,
        path: session.path,
        release() {
          // The session held, not the one now under its key: that may be a new one if this was removed.
          if (released) return;
          released = true;
          session.releases.shift()?.();
          session.busy = Math.max(0, session.busy - 1);
          if (session.busy === 0 && !session.removed) schedule(session.key, session);
        },
      };
    },

    async dispose() {
      await Promise.all([...sessions.keys()].map((key) => remove(key, 'disposed')));
    },
  };
}
