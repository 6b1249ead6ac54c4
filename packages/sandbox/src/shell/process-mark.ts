import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * The variable that marks a process started without isolation, and everything it starts:
 * children inherit their parent's environment, across `setsid`, a double fork and `nohup`,
 * none of which keep a process in the group `kill()` signals. Only a process that replaces
 * its environment (`env -i`, a login shell, `sudo`), or that another user runs, loses it.
 */
export const PROCESS_MARK_VARIABLE = 'TOOLWIRE_PROCESS_MARK';

// Rounds of find-and-kill: a process that forks while it is found is caught in the next one.
const MAX_KILL_ROUNDS = 10;
// /proc files read at once.
const READ_BATCH = 64;

/** A fresh mark for one process tree. */
export function newProcessMark(): string {
  return randomUUID();
}

function needle(mark: string): Buffer {
  return Buffer.from(`${PROCESS_MARK_VARIABLE}=${mark}\0`);
}

/** Whether a process environment (`/proc/<pid>/environ`, NUL-separated) holds one of `needles` as a whole entry. */
function markedBy(environ: Buffer, needles: readonly Buffer[]): boolean {
  for (const wanted of needles) {
    for (let at = environ.indexOf(wanted); at !== -1; at = environ.indexOf(wanted, at + 1)) {
      if (at === 0 || environ[at - 1] === 0) return true;
    }
  }
  return false;
}

function otherPids(names: readonly string[]): number[] {
  const pids: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 1 && pid !== process.pid) pids.push(pid);
  }
  return pids;
}

function signal(pid: number, signalName: NodeJS.Signals): void {
  try {
    process.kill(pid, signalName);
  } catch {
    // Gone already, or not ours to signal.
  }
}

/**
 * Calls `found` with each live process (not this one) whose environment carries `mark`, as
 * soon as its environment is read: a process signalled from there is the one just read (a
 * pid found early in a scan of thousands could otherwise exit and be reused by another
 * process before the scan ends). Where /proc cannot be read (not Linux), finds none.
 * Resolves with how many were found.
 */
async function forEachMarked(mark: string, found: (pid: number) => void): Promise<number> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return 0;
  }
  const wanted = [needle(mark)];
  const pids = otherPids(names);
  let count = 0;
  for (let start = 0; start < pids.length; start += READ_BATCH) {
    await Promise.all(
      pids.slice(start, start + READ_BATCH).map((pid) =>
        readFile(`/proc/${pid}/environ`).then(
          (environ) => {
            if (!markedBy(environ, wanted)) return;
            count++;
            found(pid);
          },
          // Gone, or another user's (unreadable to a non-root host).
          () => undefined,
        ),
      ),
    );
  }
  return count;
}

/** The live processes (not this one) whose environment carries `mark`; where /proc cannot be read, none. */
export async function findMarkedProcesses(mark: string): Promise<number[]> {
  const pids: number[] = [];
  await forEachMarked(mark, (pid) => pids.push(pid));
  return pids;
}

/**
 * Sends `signalName` to every process carrying `mark`, each as soon as it is found; with
 * SIGKILL, again until none is left (a few rounds at most). Resolves with how many processes
 * were signalled.
 */
export async function signalMarkedProcesses(mark: string, signalName: NodeJS.Signals): Promise<number> {
  let signalled = 0;
  for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
    const found = await forEachMarked(mark, (pid) => signal(pid, signalName));
    signalled += found;
    if (found === 0 || signalName !== 'SIGKILL') break;
    // A process killed but not yet reaped (a zombie) has an empty environ: it is not found again.
  }
  return signalled;
}

/** As `signalMarkedProcesses(…, 'SIGKILL')` for several marks, synchronously (for the host's `exit`, where nothing async runs). */
export function killMarkedProcessesSync(marks: Iterable<string>): void {
  const needles = [...marks].map(needle);
  if (needles.length === 0) return;
  for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
    let names: string[];
    try {
      names = readdirSync('/proc');
    } catch {
      return;
    }
    let found = 0;
    for (const pid of otherPids(names)) {
      let environ: Buffer;
      try {
        environ = readFileSync(`/proc/${pid}/environ`);
      } catch {
        continue;
      }
      if (!markedBy(environ, needles)) continue;
      found++;
      signal(pid, 'SIGKILL');
    }
    if (found === 0) return;
  }
}

// Processes without isolation still running, by mark, with their group: killed when this
// process exits (under bubblewrap the PID namespace and --die-with-parent do it).
const live = new Map<string, number>();
let exitHookInstalled = false;

function killLiveAtExit(): void {
  for (const pid of live.values()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }
  killMarkedProcessesSync(live.keys());
  live.clear();
}

/**
 * Kills the group `groupPid` and every process carrying `mark` if this process exits
 * (`process.exit()` or the end of its event loop; not a signal that kills it). Returns the
 * function that forgets them, for when they are gone.
 */
export function killAtExit(mark: string, groupPid: number): () => void {
  live.set(mark, groupPid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killLiveAtExit);
  }
  return () => live.delete(mark);
}
