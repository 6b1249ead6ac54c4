// Pins bench processes to CPUs with `taskset` (util-linux), so that a measured target has a
// core of its own and the harness (client, upstream) another: on a 2-core machine the
// harness otherwise takes its CPU from the same cores as the target, and every target's
// throughput drifts toward the harness's own rate. Where `taskset` or a second core is
// missing, nothing is pinned and `pinningNote()` says so.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const TASKSET_PATHS = ['/usr/bin/taskset', '/bin/taskset'];
// Read once, when this module loads: `availableParallelism()` follows this process's own CPU
// affinity, so after `pinSelf` it says 1, and every later check would find no second CPU
// (the children would then inherit the harness's CPU instead of getting their own).
const CPU_COUNT = availableParallelism();

/** The CPUs this process could use when it started (before any `pinSelf`). */
export function cpuCount(): number {
  return CPU_COUNT;
}

/** The `taskset` binary to use, or `undefined` where pinning is not possible here. */
export function tasksetPath(): string | undefined {
  if (process.platform !== 'linux' || CPU_COUNT < 2) return undefined;
  return TASKSET_PATHS.find((path) => existsSync(path));
}

/** Why nothing is pinned, or `undefined` when pinning works. */
export function pinningNote(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux: processes are not pinned to CPUs';
  if (CPU_COUNT < 2) return 'one CPU: processes are not pinned';
  if (tasksetPath() === undefined) return 'no taskset (util-linux): processes are not pinned to CPUs';
  return undefined;
}

/** `[command, args]` that runs `command args` on `cpus` (a taskset list such as "1" or "0,2"), or unchanged where pinning is not possible. */
export function pinnedCommand(cpus: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  const taskset = tasksetPath();
  if (cpus === undefined || taskset === undefined) return [command, [...args]];
  return [taskset, ['-c', cpus, command, ...args]];
}

/** Pins every thread of this process to `cpus`; false where it could not. */
export function pinSelf(cpus: string): boolean {
  return pinProcess(process.pid, cpus);
}

/** Pins every thread of the running process `pid` to `cpus`; false where it could not. */
export function pinProcess(pid: number | undefined, cpus: string): boolean {
  const taskset = tasksetPath();
  if (taskset === undefined || pid === undefined) return false;
  return spawnSync(taskset, ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' }).status === 0;
}

/**
 * The measured target's CPU and the harness's (every other CPU), or `undefined` where nothing
 * is pinned: the target gets CPU 1 to itself, and the harness (clients, upstream, the bench)
 * runs on CPU 0 and on any CPU past 1.
 */
export function targetAndHarnessCpus(): { target: string; harness: string } | undefined {
  if (pinningNote() !== undefined) return undefined;
  const n = CPU_COUNT;
  return { target: '1', harness: n > 2 ? `0,2-${n - 1}` : '0' };
}
