import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

// The fd the seccomp program reaches bubblewrap on (through sh, setpriv and prlimit, which
// pass inherited descriptors on).
export const SECCOMP_FD = 3;

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

/**
 * Closes the child's pipes `graceMs` after it exits if something else still holds them, so
 * its `close` event (and whatever waits for it) comes at its exit, not when the last holder
 * goes. For commands without isolation only: under bubblewrap every holder dies with the
 * PID namespace, while without it a process that left the group (`setsid`) could hold
 * stdout open for ever. (Output still unread `graceMs` after the exit is lost.)
 */
export function closePipesAfterExit(child: ChildProcess, graceMs: number): void {
  child.once('exit', () => {
    const timer = setTimeout(() => {
      for (const stream of child.stdio) stream?.destroy();
    }, graceMs);
    child.once('close', () => clearTimeout(timer));
  });
}
