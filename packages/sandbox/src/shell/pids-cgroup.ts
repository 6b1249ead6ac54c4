import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A cgroup that caps the number of processes of one command and can kill them all. */
export interface PidsCgroup {
  /** The `cgroup.procs` file a process writes its pid to, to join. */
  procsFile: string;
  /** SIGKILLs every process still in the cgroup, then removes it. */
  destroy(): void;
}

let counter = 0;

/** The directory under which per-command pids cgroups are created, or undefined if none works here. */
export function findPidsCgroupBase(): string | undefined {
  const candidates: string[] = [];
  // cgroup v1: a dedicated pids hierarchy.
  candidates.push('/sys/fs/cgroup/pids');
  // cgroup v2: our own cgroup, if the pids controller is delegated to it.
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('0::'));
    if (line !== undefined) candidates.push(join('/sys/fs/cgroup', line.slice(3)));
  } catch {
    // No /proc/self/cgroup: no cgroups.
  }
  for (const base of candidates) {
    const probe = join(base, `toolwire-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      try {
        if (!existsSync(join(probe, 'pids.max'))) continue;
        writeFileSync(join(probe, 'pids.max'), '8');
        return base;
      } finally {
        rmdirSync(probe);
      }
    } catch {
      // Not writable or no pids controller here; try the next candidate.
    }
  }
  return undefined;
}

/** Creates a pids cgroup under `base` allowing at most `maxProcesses` processes. */
export function createPidsCgroup(base: string, maxProcesses: number): PidsCgroup {
  const dir = join(base, `toolwire-${process.pid}-${++counter}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'pids.max'), String(maxProcesses));
  return {
    procsFile: join(dir, 'cgroup.procs'),
    destroy() {
      for (let attempt = 0; attempt < 50; attempt++) {
        let pids: number[];
        try {
          pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8')
            .split('\n')
            .filter((s) => s !== '')
            .map(Number);
        } catch {
          return;
        }
        if (pids.length === 0) {
          try {
            rmdirSync(dir);
            return;
          } catch {
            // A process is still exiting; go round again.
          }
        }
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    },
  };
}
