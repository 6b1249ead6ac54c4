import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { buildBubblewrapArgs, SANDBOX_HOST_UID } from './bubblewrap-args.ts';
import type { HostEntry } from './bubblewrap-args.ts';
import { findMemoryCgroupBase, findPidsCgroupBase } from './command-cgroup.ts';
import type { CgroupProbeOptions, MemoryCgroupBase } from './command-cgroup.ts';

/** What this machine can enforce for shell commands. */
export interface SandboxSupport {
  /** bubblewrap found and able to create the namespaces we need; `problem` says why not. */
  bubblewrap: { ok: true; path: string } | { ok: false; problem: string };
  /** `prlimit` (util-linux) for memory, CPU, file-size and open-file limits. */
  prlimit: string | undefined;
  /** `setpriv` (util-linux), used to run commands as an unprivileged uid when the caller is root. */
  setpriv: string | undefined;
  /**
   * How the number of processes is bounded:
   * - `cgroup`: a pids cgroup per command (a writable pids cgroup exists);
   * - `uid`: the caller is root without one, so commands run as uid `SANDBOX_HOST_UID`
   *   (65534), where RLIMIT_NPROC applies; the limit is shared by every process of that uid;
   * - `rlimit`: the caller is not root, so RLIMIT_NPROC applies to its uid;
   * - `none`: root without a pids cgroup and unable to switch uid: `runCommand` refuses.
   */
  processLimit: 'cgroup' | 'uid' | 'rlimit' | 'none';
  /**
   * The host uid commands run as when it is not the caller's: 65534 in `uid` mode.
   * A caller that creates workspaces (a code interpreter's session directories) should
   * make them writable by it, e.g. `chownSync(dir, hostUid, hostUid)`.
   */
  hostUid: number | undefined;
  /** Base directory of per-command pids cgroups when `processLimit` is `cgroup`. */
  pidsCgroupBase: string | undefined;
  /**
   * How the RAM of a command's processes together is bounded: `cgroup` (a writable memory
   * cgroup, cgroup v1 `memory` or v2 with the controller delegated: `limits.totalMemoryMb`
   * applies) or `per-process` (only RLIMIT_AS on each process, `limits.memoryMb`).
   */
  memoryLimit: 'cgroup' | 'per-process';
  /** Base directory of per-command memory cgroups when `memoryLimit` is `cgroup`. */
  memoryCgroupBase: MemoryCgroupBase | undefined;
  /**
   * Why a writable cgroup was passed over: a test process could not join it (outside this
   * process's cgroup namespace, v2's no-internal-processes rule, a delegation boundary), so
   * the next mode was taken as if none were writable. One line each; empty if none was.
   */
  cgroupProblems: string[];
  hostEntries: HostEntry[];
}

let cached: SandboxSupport | undefined;

/** Probes (once per process) what isolation this machine offers for `runCommand`. */
export function getSandboxSupport(): SandboxSupport {
  cached ??= probeSandboxSupport();
  return cached;
}

function findBinary(name: string): string | undefined {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']) {
    const path = `${dir}/${name}`;
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Probes afresh; `getSandboxSupport` keeps the first answer. Options are a test seam. */
export function probeSandboxSupport(options: Pick<CgroupProbeOptions, 'procsFile'> = {}): SandboxSupport {
  const hostEntries: HostEntry[] = [];
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const path = `/${name}`;
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) hostEntries.push({ path, type: 'symlink', target: readlinkSync(path) });
      else if (stat.isDirectory()) hostEntries.push({ path, type: 'dir' });
    } catch {
      // Absent on this host.
    }
  }
  const cgroupProblems: string[] = [];
  const pidsCgroupBase = findPidsCgroupBase({ ...options, problems: cgroupProblems });
  const memoryCgroupBase = findMemoryCgroupBase({ ...options, problems: cgroupProblems });
  const prlimit = findBinary('prlimit');
  const setpriv = findBinary('setpriv');
  const common = {
    prlimit,
    setpriv,
    pidsCgroupBase,
    memoryCgroupBase,
    cgroupProblems,
    memoryLimit: memoryCgroupBase === undefined ? ('per-process' as const) : ('cgroup' as const),
    hostEntries,
    hostUid: undefined,
  };
  const bwrap = findBinary('bwrap');
  if (bwrap === undefined) {
    return { ...common, processLimit: 'none', bubblewrap: { ok: false, problem: 'the `bwrap` binary was not found' } };
  }
  const args = buildBubblewrapArgs({
    command: ['/bin/true'],
    root: '/tmp',
    cwd: '/tmp',
    env: {},
    network: false,
    tmpSizeBytes: 1024 * 1024,
    shmSizeBytes: 1024 * 1024,
    hostEntries,
    etcPaths: [],
  });
  // `--bind /tmp /tmp` over the tmpfs is fine for a probe; nothing is written.
  const run = spawnSync(bwrap, args, { encoding: 'utf8', timeout: 10_000, env: {} });
  if (run.status !== 0) {
    const detail = (run.stderr || run.error?.message || `exit ${run.status}`).trim();
    return { ...common, processLimit: 'none', bubblewrap: { ok: false, problem: `bubblewrap cannot create its namespaces here (${detail})` } };
  }
  const bubblewrap = { ok: true as const, path: bwrap };
  if (pidsCgroupBase !== undefined) return { ...common, processLimit: 'cgroup', bubblewrap };
  if (process.geteuid?.() !== 0) return { ...common, processLimit: 'rlimit', bubblewrap };
  // Root without a pids cgroup: RLIMIT_NPROC binds only if the command is not root, so
  // check that bubblewrap also works as the unprivileged uid (user namespaces for all).
  if (setpriv === undefined) return { ...common, processLimit: 'none', bubblewrap };
  const asUser = spawnSync(setpriv, [...dropToSandboxUid(), bwrap, ...args], { encoding: 'utf8', timeout: 10_000, env: {} });
  if (asUser.status !== 0) return { ...common, processLimit: 'none', bubblewrap };
  return { ...common, processLimit: 'uid', hostUid: SANDBOX_HOST_UID, bubblewrap };
}

/** The `setpriv` arguments that switch to `SANDBOX_HOST_UID` for good (real, effective, saved). */
export function dropToSandboxUid(): string[] {
  return [`--reuid=${SANDBOX_HOST_UID}`, `--regid=${SANDBOX_HOST_UID}`, '--clear-groups', '--'];
}
