import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { buildBubblewrapArgs } from './bubblewrap-args.ts';
import type { HostEntry } from './bubblewrap-args.ts';
import { findPidsCgroupBase } from './pids-cgroup.ts';

/** What this machine can enforce for shell commands. */
export interface SandboxSupport {
  /** bubblewrap found and able to create the namespaces we need; `problem` says why not. */
  bubblewrap: { ok: true; path: string } | { ok: false; problem: string };
  /** `prlimit` (util-linux) for memory, CPU, file-size and open-file limits. */
  prlimit: string | undefined;
  /**
   * Where the process limit comes from: a pids cgroup (works for every caller), or
   * RLIMIT_NPROC, which the kernel does not apply to root.
   */
  processLimit: 'cgroup' | 'rlimit';
  /** Base directory of per-command pids cgroups when `processLimit` is `cgroup`. */
  pidsCgroupBase: string | undefined;
  hostEntries: HostEntry[];
}

let cached: SandboxSupport | undefined;

/** Probes (once per process) what isolation this machine offers for `runCommand`. */
export function getSandboxSupport(): SandboxSupport {
  cached ??= probe();
  return cached;
}

function findBinary(name: string): string | undefined {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']) {
    const path = `${dir}/${name}`;
    if (existsSync(path)) return path;
  }
  return undefined;
}

function probe(): SandboxSupport {
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
  const pidsCgroupBase = findPidsCgroupBase();
  const common = {
    prlimit: findBinary('prlimit'),
    processLimit: pidsCgroupBase === undefined ? ('rlimit' as const) : ('cgroup' as const),
    pidsCgroupBase,
    hostEntries,
  };
  const bwrap = findBinary('bwrap');
  if (bwrap === undefined) return { ...common, bubblewrap: { ok: false, problem: 'the `bwrap` binary was not found' } };
  const args = buildBubblewrapArgs({
    command: ['/bin/true'],
    root: '/tmp',
    cwd: '/tmp',
    env: {},
    network: false,
    tmpSizeBytes: 1024 * 1024,
    hostEntries,
    etcPaths: [],
  });
  // `--bind /tmp /tmp` over the tmpfs is fine for a probe; nothing is written.
  const run = spawnSync(bwrap, args, { encoding: 'utf8', timeout: 10_000, env: {} });
  if (run.status !== 0) {
    const detail = (run.stderr || run.error?.message || `exit ${run.status}`).trim();
    return { ...common, bubblewrap: { ok: false, problem: `bubblewrap cannot create its namespaces here (${detail})` } };
  }
  return { ...common, bubblewrap: { ok: true, path: bwrap } };
}
