import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeJoinFailure, JOIN_STATUS_FD } from './jail-process.ts';

/** Where per-command memory cgroups go, and which cgroup version's files they use. */
export interface MemoryCgroupBase {
  path: string;
  /** 1: `memory.limit_in_bytes` and `memory.oom_control`; 2: `memory.max` and `memory.events`. */
  version: 1 | 2;
}

/** The cgroups one command runs in: a process count cap, a RAM cap for all its processes together, or both. */
export interface CommandCgroup {
  /** The `cgroup.procs` files a process writes its pid to, to join (one per hierarchy). */
  procsFiles: string[];
  /** How many times the kernel's OOM killer ended one of the command's processes at the memory cap (also after `destroy`). */
  oomKills(): number;
  /**
   * SIGKILLs every process still in the cgroups, then removes them: at once if they are
   * empty, else in the background (never blocking), as their last processes finish exiting.
   */
  destroy(): void;
}

let counter = 0;

/**
 * Our own cgroup directory: in the v2 hierarchy (`controller` undefined), or in the v1
 * hierarchy of `controller`. Commands' cgroups go under it first, so that whatever limits
 * our own cgroup has (a container's) still hold them.
 */
function ownCgroup(controller?: string): string | undefined {
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      // hierarchy-id:controller-list:path
      const first = line.indexOf(':');
      const second = line.indexOf(':', first + 1);
      if (first < 0 || second < 0) continue;
      const controllers = line.slice(first + 1, second);
      const path = line.slice(second + 1);
      if (controller === undefined ? line.startsWith('0::') : controllers.split(',').includes(controller)) {
        return join('/sys/fs/cgroup', controller ?? '', path);
      }
    }
  } catch {
    // No /proc/self/cgroup: no cgroups.
  }
  return undefined;
}

/** How the probe tries cgroups (a test seam), and where it says why it passed one over. */
export interface CgroupProbeOptions {
  /** The file in a cgroup a process writes its pid to, to join it (default `cgroup.procs`). */
  procsFile?: string;
  /** Receives a line for each writable cgroup base a test process could not join. */
  problems?: string[];
}

// Joins the command's cgroups ($1 of them, the `cgroup.procs` files that follow), then execs
// the rest of argv. A fixed script: the command only ever travels as positional arguments
// ("$@"), never as shell text. A failed join is reported on JOIN_STATUS_FD (never confused
// with the command's own exit 125); that fd is closed before the command starts.
const JOIN_CGROUP_SCRIPT =
  'n=$1; shift; while [ "$n" -gt 0 ]; do ' +
  `{ echo $$ > "$1"; } 2>&${JOIN_STATUS_FD} || { echo "could not join $1" >&${JOIN_STATUS_FD}; exit 125; }; ` +
  `shift; n=$((n - 1)); done; exec ${JOIN_STATUS_FD}>&-; exec "$@"`;

/**
 * The argv that moves itself into the cgroups of `procsFiles`, then execs `argv` (same pid);
 * spawn it with a pipe at `JOIN_STATUS_FD` (`jailStdio`) to learn whether the join failed.
 */
export function joinCgroupsArgv(procsFiles: readonly string[], argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', JOIN_CGROUP_SCRIPT, 'toolwire-join', String(procsFiles.length), ...procsFiles, ...argv];
}

/**
 * Why a process cannot join the cgroup whose `cgroup.procs` is `procsFile` the way commands
 * do (undefined: it can). Writable is not enough: joining also fails where the cgroup lies
 * outside our cgroup namespace, under v2's no-internal-processes rule (EBUSY), or across a
 * delegation boundary (EACCES, EPERM). One short-lived process, which then lists the file.
 */
export function cgroupJoinProblem(procsFile: string): string | undefined {
  const argv = joinCgroupsArgv([procsFile], ['/bin/cat', procsFile]);
  const run = spawnSync(argv[0] as string, argv.slice(1), {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'pipe'],
  });
  const report = run.output?.[JOIN_STATUS_FD] ?? '';
  if (report !== '') return `a test process could not join it (${describeJoinFailure(report)})`;
  if (run.error !== undefined) return `a test process could not be started (${run.error.message})`;
  if (run.status !== 0) return `a test process that joined it exited ${run.status ?? run.signal ?? '?'} (${run.stderr.trim().slice(0, 200)})`;
  // The pid the kernel lists there is the one spawned: it did run in the cgroup.
  if (run.pid === undefined || !run.stdout.split('\n').includes(String(run.pid))) return 'a test process wrote its pid there but did not run in it';
  return undefined;
}

/**
 * Whether a child cgroup can be made under `base` with `file` in it, `value` written to it,
 * and a process moved into it as commands will be.
 */
function probe(base: string, file: string, value: string, options: CgroupProbeOptions): boolean {
  const dir = join(base, `toolwire-probe-${process.pid}-${++counter}`);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  try {
    if (!existsSync(join(dir, file))) return false;
    writeFileSync(join(dir, file), value);
    const problem = cgroupJoinProblem(join(dir, options.procsFile ?? 'cgroup.procs'));
    if (problem !== undefined) options.problems?.push(`${base}: ${problem}`);
    return problem === undefined;
  } catch {
    return false;
  } finally {
    // Empty again (the test process has exited): removed at once, else in the background.
    destroyCgroup(dir);
  }
}

/** The directory under which per-command pids cgroups are created, or undefined if none works here. */
export function findPidsCgroupBase(options: CgroupProbeOptions = {}): string | undefined {
  // cgroup v1: our cgroup in the pids hierarchy, else its root; cgroup v2: our own cgroup,
  // if the pids controller is delegated to it.
  const candidates = [ownCgroup('pids'), '/sys/fs/cgroup/pids', ownCgroup()];
  const base = candidates.find((candidate) => candidate !== undefined && probe(candidate, 'pids.max', '8', options));
  if (base !== undefined) removeStaleCgroups(base);
  return base;
}

/** The directory under which per-command memory cgroups are created, or undefined if none works here. */
export function findMemoryCgroupBase(options: CgroupProbeOptions = {}): MemoryCgroupBase | undefined {
  for (const path of [ownCgroup('memory'), '/sys/fs/cgroup/memory']) {
    if (path !== undefined && probe(path, 'memory.limit_in_bytes', String(64 * 1024 * 1024), options)) {
      removeStaleCgroups(path);
      return { path, version: 1 };
    }
  }
  const unified = ownCgroup();
  if (unified !== undefined && probe(unified, 'memory.max', String(64 * 1024 * 1024), options)) {
    removeStaleCgroups(unified);
    return { path: unified, version: 2 };
  }
  return undefined;
}

/**
 * Creates the cgroups of one command: `pids.max` under `pidsBase`, the memory cap (swap
 * included where the kernel counts it) under `memory`. On cgroup v2 both bases are the same
 * directory, so one cgroup holds both limits.
 */
export function createCommandCgroup(options: {
  pidsBase: string | undefined;
  maxProcesses: number;
  memory: MemoryCgroupBase | undefined;
  memoryBytes: number;
}): CommandCgroup | undefined {
  const name = `toolwire-${process.pid}-${++counter}`;
  const dirs: string[] = [];
  const settings = new Map<string, [string, string][]>();
  const add = (base: string, file: string, value: string) => {
    const dir = join(base, name);
    if (!settings.has(dir)) {
      dirs.push(dir);
      settings.set(dir, []);
    }
    settings.get(dir)?.push([file, value]);
  };
  if (options.pidsBase !== undefined) add(options.pidsBase, 'pids.max', String(options.maxProcesses));
  const memory = options.memory;
  if (memory !== undefined) {
    const bytes = String(options.memoryBytes);
    if (memory.version === 1) {
      add(memory.path, 'memory.limit_in_bytes', bytes);
      // Only where swap accounting is on; written after the RAM limit, which it must not be under.
      if (existsSync(join(memory.path, 'memory.memsw.limit_in_bytes'))) add(memory.path, 'memory.memsw.limit_in_bytes', bytes);
    } else {
      add(memory.path, 'memory.max', bytes);
      add(memory.path, 'memory.swap.max', '0');
    }
  }
  if (dirs.length === 0) return undefined;
  const created: string[] = [];
  const memoryDir = memory === undefined ? undefined : join(memory.path, name);
  // Read before the cgroup goes, so a kill timer that removes it early does not lose the count.
  let oomKills = 0;
  const readOom = () => {
    if (memoryDir !== undefined && memory !== undefined && created.includes(memoryDir)) oomKills = Math.max(oomKills, readOomKills(memoryDir, memory.version));
    return oomKills;
  };
  const destroy = () => {
    readOom();
    for (const dir of created.splice(0)) destroyCgroup(dir);
  };
  try {
    for (const dir of dirs) {
      mkdirSync(dir);
      created.push(dir);
      for (const [file, value] of settings.get(dir) ?? []) {
        // memory.swap.max is absent without swap accounting; the other files were probed.
        if (file === 'memory.swap.max' && !existsSync(join(dir, file))) continue;
        writeFileSync(join(dir, file), value);
      }
    }
  } catch (error) {
    destroy();
    throw error;
  }
  return {
    procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')),
    oomKills: readOom,
    destroy,
  };
}

function readOomKills(dir: string, version: 1 | 2): number {
  try {
    const text = readFileSync(join(dir, version === 1 ? 'memory.oom_control' : 'memory.events'), 'utf8');
    const line = text.split('\n').find((l) => l.startsWith('oom_kill '));
    return line === undefined ? 0 : Number(line.slice('oom_kill '.length)) || 0;
  } catch {
    // Removed already, or an old kernel without the counter.
    return 0;
  }
}

const REMOVE_ATTEMPTS = 40;

/**
 * SIGKILLs every process in the cgroup `dir`, then removes it (gone already: nothing to
 * do). While it cannot (a process still exiting, one stuck in the kernel), it tries again
 * later on a timer that does not keep the process alive, backing off to a second, for
 * about half a minute; whatever is left then is swept by the next process's probe.
 */
function destroyCgroup(dir: string, attempt = 0): void {
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
      // A process is still exiting; try again below.
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  if (attempt + 1 >= REMOVE_ATTEMPTS) return;
  setTimeout(() => destroyCgroup(dir, attempt + 1), Math.min(10 * 2 ** attempt, 1000)).unref();
}

const STALE_AFTER_MS = 60_000;

/**
 * Removes the empty cgroups a process of ours that died without cleaning up left under
 * `base` (`toolwire-<pid>-<n>`, its pid gone, made over a minute ago: a command's cgroup is
 * joined within milliseconds of being made, so an empty one that old is nobody's).
 * rmdir only removes empty cgroups, so nothing that still runs is touched.
 */
export function removeStaleCgroups(base: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^toolwire-(?:probe-)?(\d+)-\d+$/.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processExists(pid)) continue;
    const dir = join(base, name);
    try {
      if (now - statSync(dir).mtimeMs < STALE_AFTER_MS) continue;
      rmdirSync(dir);
    } catch {
      // Still populated, or removed meanwhile.
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
