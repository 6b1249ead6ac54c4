import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

// The fd the seccomp program reaches bubblewrap on (through sh, setpriv and prlimit, which
// pass inherited descriptors on).
export const SECCOMP_FD = 3;
// The fd the cgroup join script reports a failed join on; it closes it before the command
// starts, so the command never sees it and cannot write to it.
export const JOIN_STATUS_FD = 4;

/** The jail's stdio: `stdin` as asked, stdout and stderr piped, then the seccomp pipe and the join status pipe where used. */
export function jailStdio<Stdin extends 'ignore' | 'pipe'>(
  stdin: Stdin,
  options: { seccomp: boolean; cgroup: boolean },
): [Stdin, 'pipe', 'pipe', ...('ignore' | 'pipe')[]] {
  const stdio: [Stdin, 'pipe', 'pipe', ...('ignore' | 'pipe')[]] = [stdin, 'pipe', 'pipe'];
  if (options.seccomp || options.cgroup) stdio.push(options.seccomp ? 'pipe' : 'ignore');
  if (options.cgroup) stdio.push('pipe');
  return stdio;
}

/**
 * Collects what the cgroup join script says on `JOIN_STATUS_FD` (it writes there only when
 * it could not join). The result is read once the child has closed: undefined if it joined.
 */
export function watchCgroupJoin(child: ChildProcess): () => string | undefined {
  const pipe = child.stdio[JOIN_STATUS_FD] as Readable | null | undefined;
  if (!pipe) return () => undefined;
  let text = '';
  pipe.setEncoding('utf8');
  pipe.on('data', (chunk: string) => {
    // The shell's error message and ours: a few lines at most.
    if (text.length < 4096) text += chunk;
  });
  pipe.on('error', () => undefined);
  return () => (text === '' ? undefined : describeJoinFailure(text));
}

/** One line from the join script's report (the shell's own message, then ours). */
export function describeJoinFailure(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('; ')
    .slice(0, 1000);
}

/**
 * Writes the seccomp program (if any) to the jail's fd `SECCOMP_FD`, where bubblewrap reads
 * it before it starts the command; the child must have been spawned with a pipe there.
 */
export function writeSeccompProgram(child: ChildProcess, program: Buffer | undefined): void {
  const pipe = child.stdio[SECCOMP_FD] as Writable | null | undefined;
  if (program === undefined || !pipe) return;
  // A child that exits before reading it must not turn into an error here.
  pipe.on('error', () => undefined);
  pipe.end(program);
}

/** Sends `signal` to the jail's whole process group (it was spawned `detached`), so it reaches everything the command started. */
export function killProcessGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Ends the pipes of a child that exited, once whatever else holds them has had its say. */
export interface PipeCloser {
  /** Closes them `graceMs` after the exit at the latest, output or not (the timeout or an abort ended the run). */
  closeSoon(): void;
}

/**
 * Closes the child's pipes once nothing came through them for `graceMs` after it exited,
 * or `capMs` after the exit at the latest (if set; else `closeSoon` bounds it), so its
 * `close` event (and whatever waits for it) comes when its output is done, not when the
 * last holder goes. For commands without isolation only: under bubblewrap every holder
 * dies with the PID namespace, while without it a process that left the group (`setsid`)
 * could hold stdout open for ever. Output still flowing from a background writer is read
 * to its end; a holder that stays silent for `graceMs` (or trickles past `capMs`) is cut off.
 */
export function closePipesAfterExit(child: ChildProcess, options: { graceMs: number; capMs?: number }): PipeCloser {
  let exited = false;
  let forced = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let capTimer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(idleTimer);
    clearTimeout(capTimer);
    for (const stream of child.stdio) stream?.destroy();
  };
  const rearm = () => {
    if (!exited || forced) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(close, options.graceMs);
  };
  child.stdout?.on('data', rearm);
  child.stderr?.on('data', rearm);
  child.once('exit', () => {
    exited = true;
    if (forced) {
      idleTimer = setTimeout(close, options.graceMs);
      return;
    }
    rearm();
    if (options.capMs !== undefined) capTimer = setTimeout(close, Math.max(options.capMs, options.graceMs));
  });
  child.once('close', () => {
    clearTimeout(idleTimer);
    clearTimeout(capTimer);
  });
  return {
    closeSoon() {
      if (forced) return;
      forced = true;
      if (exited) {
        clearTimeout(idleTimer);
        idleTimer = setTimeout(close, options.graceMs);
      }
    },
  };
}
