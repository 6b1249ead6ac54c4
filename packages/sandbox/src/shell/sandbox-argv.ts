import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { SandboxUnavailableError } from '../errors.ts';
import { buildBubblewrapArgs, ETC_NETWORK_PATHS, ETC_PATHS } from './bubblewrap-args.ts';
import { createPidsCgroup } from './pids-cgroup.ts';
import type { PidsCgroup } from './pids-cgroup.ts';
import { getSandboxSupport } from './sandbox-support.ts';

/** Resource limits of one command (applied with prlimit and a pids cgroup around bubblewrap). */
export interface CommandLimits {
  /** Address-space limit in MB (RLIMIT_AS; default 1024). */
  memoryMb?: number;
  /** CPU seconds (RLIMIT_CPU; default: the timeout rounded up, plus one). */
  cpuSeconds?: number;
  /** Largest file the command may write, in MB (RLIMIT_FSIZE; default 256). */
  fileSizeMb?: number;
  /** Processes at once (pids cgroup, else RLIMIT_NPROC; default 128). */
  processes?: number;
  /** Open files (RLIMIT_NOFILE; default 1024). */
  openFiles?: number;
  /** Size of the sandbox's `/tmp` in MB (default 64). */
  tmpSizeMb?: number;
}

/** What both `runCommand` and `spawnSandboxed` need to build a sandboxed argv. */
export interface SandboxArgvOptions {
  command: readonly string[];
  cwd: string;
  root?: string;
  env?: Record<string, string>;
  network?: boolean;
  isolation?: 'bubblewrap' | 'none';
  limits?: CommandLimits;
  readOnlyPaths?: readonly string[];
  /** CPU seconds when `limits.cpuSeconds` is not set; undefined leaves CPU time unlimited. */
  defaultCpuSeconds: number | undefined;
  /** For error messages: `runCommand` or `spawnSandboxed`. */
  caller: string;
}

/** A checked, ready-to-spawn command; call `cgroup?.destroy()` once it has ended. */
export interface SandboxArgv {
  command: string[];
  argv: string[];
  cwd: string;
  /** The real (symlink-free) writable directory and start directory. */
  root: string;
  commandCwd: string;
  env: Record<string, string>;
  cgroup: PidsCgroup | undefined;
}

const HOST_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';
// Joins the pids cgroup, then execs the rest of argv. A fixed script: the command only
// ever travels as positional arguments ("$@"), never as shell text.
const JOIN_CGROUP_SCRIPT = 'echo $$ > "$0" || exit 125; exec "$@"';
const MB = 1024 * 1024;

/**
 * Checks a command and builds the argv that runs it under prlimit and bubblewrap (or bare,
 * with `isolation: 'none'`). Throws `TypeError` for bad input and `SandboxUnavailableError`
 * where bubblewrap cannot run.
 */
export function buildSandboxArgv(options: SandboxArgvOptions): SandboxArgv {
  const { caller } = options;
  const command = [...options.command];
  if (command.length === 0 || command.some((part) => typeof part !== 'string' || part.includes('\0'))) {
    throw new TypeError(`${caller}: \`command\` must be a non-empty array of strings without NUL characters.`);
  }
  const cwd = realpathSync(options.cwd);
  const root = realpathSync(options.root ?? options.cwd);
  if (root === '/') {
    throw new TypeError(`${caller}: the writable root cannot be "/"; pass a workspace directory as cwd or root.`);
  }
  if (cwd !== root && !cwd.startsWith(root + sep)) {
    throw new TypeError(`${caller}: cwd ${cwd} is not inside root ${root}.`);
  }
  const readOnlyPaths = (options.readOnlyPaths ?? []).map((path) => {
    if (typeof path !== 'string' || path.includes('\0')) throw new TypeError(`${caller}: \`readOnlyPaths\` must be strings.`);
    return realpathSync(path);
  });
  const isolation = options.isolation ?? 'bubblewrap';
  const limits = options.limits ?? {};
  const processes = limits.processes ?? 128;
  switch (isolation) {
    case 'none':
      return {
        command,
        argv: command,
        cwd,
        root,
        commandCwd: cwd,
        env: { PATH: HOST_PATH, HOME: root, LANG: 'C.UTF-8', ...options.env },
        cgroup: undefined,
      };
    case 'bubblewrap': {
      const support = getSandboxSupport();
      if (!support.bubblewrap.ok) throw new SandboxUnavailableError({ missing: 'bubblewrap', detail: support.bubblewrap.problem });
      if (support.prlimit === undefined) {
        throw new SandboxUnavailableError({ missing: 'prlimit', detail: '`prlimit` (util-linux) was not found' });
      }
      const bwrapArgs = buildBubblewrapArgs({
        command,
        root,
        cwd,
        env: options.env ?? {},
        network: options.network ?? false,
        tmpSizeBytes: (limits.tmpSizeMb ?? 64) * MB,
        hostEntries: support.hostEntries,
        etcPaths: options.network === true ? [...ETC_PATHS, ...ETC_NETWORK_PATHS] : ETC_PATHS,
        readOnlyPaths,
      });
      const cpuSeconds = limits.cpuSeconds ?? options.defaultCpuSeconds;
      let argv = [
        support.prlimit,
        `--as=${(limits.memoryMb ?? 1024) * MB}`,
        ...(cpuSeconds === undefined ? [] : [`--cpu=${cpuSeconds}`]),
        `--fsize=${(limits.fileSizeMb ?? 256) * MB}`,
        `--nproc=${processes}`,
        `--nofile=${limits.openFiles ?? 1024}`,
        '--core=0',
        '--',
        support.bubblewrap.path,
        ...bwrapArgs,
      ];
      let cgroup: PidsCgroup | undefined;
      if (support.pidsCgroupBase !== undefined) {
        cgroup = createPidsCgroup(support.pidsCgroupBase, processes);
        argv = ['/bin/sh', '-c', JOIN_CGROUP_SCRIPT, cgroup.procsFile, ...argv];
      }
      return { command, argv, cwd: '/', root, commandCwd: cwd, env: { PATH: HOST_PATH }, cgroup };
    }
    default: {
      const unknown: never = isolation;
      throw new TypeError(`${caller}: unknown isolation ${String(unknown)}.`);
    }
  }
}
