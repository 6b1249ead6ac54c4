import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { emitAudit } from '../policy/audit-event.ts';
import type { AuditHandler } from '../policy/audit-event.ts';
import { checkDurationMs } from '../policy/check-duration.ts';
import { hashArguments } from '../policy/hash-arguments.ts';
import { SandboxUnavailableError } from '../errors.ts';
import { buildBubblewrapArgs, ETC_NETWORK_PATHS, ETC_PATHS } from './bubblewrap-args.ts';
import { closePipesAfterExit, jailStdio, killProcessGroup, SECCOMP_FD, watchCgroupJoin, writeSeccompProgram } from './jail-process.ts';
import { OutputBuffer } from './output-buffer.ts';
import { createCommandCgroup, joinCgroupsArgv } from './command-cgroup.ts';
import { killAtExit, newProcessMark, PROCESS_MARK_VARIABLE, signalMarkedProcesses } from './process-mark.ts';
import type { CommandCgroup } from './command-cgroup.ts';
import { dropToSandboxUid, getSandboxSupport } from './sandbox-support.ts';
import { SANDBOX_HOST_UID } from './bubblewrap-args.ts';
import { seccompProgram } from './seccomp-filter.ts';
import { uidCanWriteDir } from './uid-access.ts';

/**
 * Resource limits of one command, applied with prlimit, a pids cgroup (or an unprivileged
 * uid), a memory cgroup where one is writable, and sized tmpfs mounts around bubblewrap.
 * RAM the command can fill on its own is bounded by `totalMemoryMb` where a memory cgroup
 * is writable (`getSandboxSupport().memoryLimit === 'cgroup'`), else only by `memoryMb`
 * per process plus `tmpSizeMb + shmSizeMb` of tmpfs (the rest of `/dev` and `/` is
 * read-only; the workspace is the host's disk).
 */
export interface CommandLimits {
  /** Address-space limit of each process in MB (RLIMIT_AS; default 1024). */
  memoryMb?: number;
  /**
   * RAM of all the command's processes together in MB, tmpfs files and page cache included
   * (a memory cgroup; default `memoryMb + tmpSizeMb + shmSizeMb`). Past it the kernel kills
   * one of them. Applied where `getSandboxSupport().memoryLimit` is `cgroup`.
   */
  totalMemoryMb?: number;
  /** CPU seconds (RLIMIT_CPU; default: the timeout rounded up, plus one). */
  cpuSeconds?: number;
  /** Largest file the command may write, in MB (RLIMIT_FSIZE; default 256). */
  fileSizeMb?: number;
  /**
   * Processes at once (default 128): a pids cgroup where one is writable, else RLIMIT_NPROC,
   * for a root caller applied by running the command as uid 65534 (see
   * `getSandboxSupport().processLimit`).
   */
  processes?: number;
  /** Open files (RLIMIT_NOFILE; default 1024). */
  openFiles?: number;
  /** Size of the sandbox's `/tmp` tmpfs in MB (default 64). */
  tmpSizeMb?: number;
  /** Size of the sandbox's `/dev/shm` tmpfs in MB (default 16). */
  shmSizeMb?: number;
}

/** Options of `runCommand`. */
export interface RunCommandOptions {
  /** The program and its arguments, passed to execvp; never joined into a shell string. */
  command: readonly string[];
  /** Where the command starts. */
  cwd: string;
  /** The writable directory (default `cwd`); `cwd` must be inside it. Nothing else is writable. */
  root?: string;
  /** Kill the whole process group after this long: TERM, then KILL (default 10 000 ms). */
  timeoutMs?: number;
  /**
   * Aborting it kills the whole process group the same way, at once (a caller that went
   * away: pass the tool's signal). Already aborted: `runCommand` rejects with its reason and
   * starts nothing.
   */
  signal?: AbortSignal;
  /** stdout and stderr together are cut at this many bytes (default 1 MiB). */
  maxOutputBytes?: number;
  /** Variables added to the cleared environment (which has only PATH, HOME and LANG). */
  env?: Record<string, string>;
  /** Give the command network access (default false: a private network namespace). */
  network?: boolean;
  /** `'none'` runs without isolation; only pass it knowingly (default `'bubblewrap'`). */
  isolation?: 'bubblewrap' | 'none';
  limits?: CommandLimits;
  /** Host paths bound read-only at their own path inside the sandbox (default none). */
  readOnlyPaths?: readonly string[];
  /** Receives one audit event (never the command's arguments or environment, only a hash). */
  onAudit?: AuditHandler;
  /** Tool name for the audit event (default `command`). */
  auditTool?: string;
  /** Who asked, for the audit event. */
  principal?: string;
}

/** How a command ended. `exitCode` is null when a signal ended it. */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Output went past `maxOutputBytes` and the rest was discarded. */
  truncated: boolean;
  durationMs: number;
}

const KILL_GRACE_MS = 500;
const HOST_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * Runs a command under bubblewrap with a read-only minimal root, one writable directory,
 * no network (by default), process/memory/CPU/file-size limits, a scrubbed environment,
 * a timeout that kills the whole process group, and an output cap. Throws
 * `SandboxUnavailableError` where bubblewrap cannot run, unless `isolation: 'none'`.
 * @example
 * const result = await runCommand({ command: ['ls', '-la'], cwd: '/srv/workspace' });
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  const startedAt = new Date();
  checkDurationMs(timeoutMs, 'runCommand: `timeoutMs`');
  options.signal?.throwIfAborted();
  const { command, cwd, argv, cgroup, seccomp, spawnCwd, spawnEnv, mark } = prepareCommand(options, {
    caller: 'runCommand',
    cpuSeconds: Math.ceil(timeoutMs / 1000) + 1,
  });

  let result: CommandResult;
  let joinFailure: string | undefined;
  let aborted: boolean;
  let oomKills: number;
  try {
    ({ result, joinFailure, aborted } = await spawnAndCollect({
      argv,
      cwd: spawnCwd,
      env: spawnEnv,
      timeoutMs,
      maxOutputBytes,
      cgroup,
      seccomp,
      signal: options.signal,
      isolated: (options.isolation ?? 'bubblewrap') !== 'none',
      mark,
    }));
    oomKills = cgroup?.oomKills() ?? 0;
  } finally {
    cgroup?.destroy();
  }
  if (joinFailure !== undefined) throw cgroupJoinError(joinFailure);
  if (oomKills > 0) {
    result.stderr += `${result.stderr === '' || result.stderr.endsWith('\n') ? '' : '\n'}[the kernel killed a process: the command's processes together passed their ${totalMemoryMb(options.limits ?? {})} MB memory limit]\n`;
  }
  emitAudit(options.onAudit, {
    kind: 'shell',
    tool: options.auditTool ?? 'command',
    ...(options.principal === undefined ? {} : { principal: options.principal }),
    argumentsHash: hashArguments({ command, cwd }),
    startedAt: startedAt.toISOString(),
    durationMs: result.durationMs,
    outcome: result.timedOut ? 'timeout' : aborted ? 'aborted' : result.exitCode === 0 ? 'ok' : 'nonzero-exit',
    limitsHit: [...(result.timedOut ? ['timeout'] : []), ...(result.truncated ? ['output'] : []), ...(oomKills > 0 ? ['memory'] : [])],
    exitCode: result.exitCode,
  });
  return result;
}

/** A checked command and the argv that runs it isolated; destroy `cgroup` once it has ended. */
export interface PreparedCommand {
  command: string[];
  /** The real start directory. */
  cwd: string;
  argv: string[];
  cgroup: CommandCgroup | undefined;
  /** A seccomp BPF program for bubblewrap, to be written to the child's fd `SECCOMP_FD`. */
  seccomp: Buffer | undefined;
  spawnCwd: string;
  spawnEnv: Record<string, string>;
  /**
   * Without isolation: the mark in `spawnEnv` that everything the command starts inherits,
   * to find what left its process group (no PID namespace holds it).
   */
  mark: string | undefined;
}

/**
 * Checks a command and builds the argv that runs it under prlimit and bubblewrap (or bare,
 * with `isolation: 'none'`); shared by `runCommand` and `spawnSandboxed`. `cpuSeconds` is
 * the CPU limit when `limits.cpuSeconds` is unset (undefined: none).
 */
export function prepareCommand(
  options: Pick<RunCommandOptions, 'command' | 'cwd' | 'root' | 'env' | 'network' | 'isolation' | 'limits' | 'readOnlyPaths'>,
  how: { caller: string; cpuSeconds: number | undefined },
): PreparedCommand {
  const command = [...options.command];
  if (command.length === 0 || command.some((part) => typeof part !== 'string' || part.includes('\0'))) {
    throw new TypeError(`${how.caller}: \`command\` must be a non-empty array of strings without NUL characters.`);
  }
  const cwd = realpathSync(options.cwd);
  const root = realpathSync(options.root ?? options.cwd);
  if (root === '/') {
    throw new TypeError(`${how.caller}: the writable root cannot be "/"; pass a workspace directory as cwd or root.`);
  }
  if (cwd !== root && !cwd.startsWith(root + sep)) {
    throw new TypeError(`${how.caller}: cwd ${cwd} is not inside root ${root}.`);
  }
  const readOnlyPaths = (options.readOnlyPaths ?? []).map((path) => realpathSync(path));
  const isolation = options.isolation ?? 'bubblewrap';
  const limits = options.limits ?? {};
  const processes = limits.processes ?? 128;
  const cpuSeconds = limits.cpuSeconds ?? how.cpuSeconds;

  let argv: string[];
  let cgroup: CommandCgroup | undefined;
  let seccomp: Buffer | undefined;
  switch (isolation) {
    case 'none':
      argv = command;
      break;
    case 'bubblewrap': {
      const support = getSandboxSupport();
      if (!support.bubblewrap.ok) throw new SandboxUnavailableError({ missing: 'bubblewrap', detail: support.bubblewrap.problem });
      if (support.prlimit === undefined) {
        throw new SandboxUnavailableError({ missing: 'prlimit', detail: '`prlimit` (util-linux) was not found' });
      }
      if (support.processLimit === 'none') {
        throw new SandboxUnavailableError({
          missing: 'process-limit',
          detail:
            'this process runs as root without a writable pids cgroup, and commands cannot be run as an unprivileged uid here ' +
            '(`setpriv` missing or user namespaces closed to other users), so a fork bomb could fill the process table',
          hint:
            'Give this process a writable pids cgroup (cgroup v2 with the pids controller delegated), install util-linux ' +
            '`setpriv` on a kernel that allows unprivileged user namespaces, or run as a non-root user.',
        });
      }
      if (support.processLimit === 'uid' && !uidCanWriteDir(root, SANDBOX_HOST_UID, SANDBOX_HOST_UID)) {
        throw new SandboxUnavailableError({
          missing: 'process-limit',
          detail: `commands run as uid ${SANDBOX_HOST_UID} here (root without a writable pids cgroup, so that RLIMIT_NPROC applies), and that uid cannot write ${root}`,
          hint: `Make the workspace writable by uid ${SANDBOX_HOST_UID} (e.g. \`chown ${SANDBOX_HOST_UID}:${SANDBOX_HOST_UID} ${root}\`, with search permission on its parents), or give this process a writable pids cgroup.`,
        });
      }
      seccomp = seccompProgram(process.arch);
      const bwrapArgs = buildBubblewrapArgs({
        ...(seccomp === undefined ? {} : { seccompFd: SECCOMP_FD }),
        command,
        readOnlyPaths,
        root,
        cwd,
        env: options.env ?? {},
        network: options.network ?? false,
        tmpSizeBytes: (limits.tmpSizeMb ?? 64) * 1024 * 1024,
        shmSizeBytes: (limits.shmSizeMb ?? 16) * 1024 * 1024,
        hostEntries: support.hostEntries,
        etcPaths: options.network === true ? [...ETC_PATHS, ...ETC_NETWORK_PATHS] : ETC_PATHS,
      });
      const MB = 1024 * 1024;
      argv = [
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
      if (support.processLimit === 'uid' && support.setpriv !== undefined) {
        // The kernel ignores RLIMIT_NPROC for root: drop to an unprivileged uid (real,
        // effective and saved) before prlimit and bubblewrap, so the limit binds.
        argv = [support.setpriv, ...dropToSandboxUid(), ...argv];
      }
      const totalMb = totalMemoryMb(limits);
      if (!Number.isFinite(totalMb) || totalMb < 1) {
        throw new TypeError(`${how.caller}: \`limits.totalMemoryMb\` must be a number of MB ≥ 1, got ${String(totalMb)}.`);
      }
      cgroup = createCommandCgroup({
        pidsBase: support.processLimit === 'cgroup' ? support.pidsCgroupBase : undefined,
        maxProcesses: processes,
        memory: support.memoryCgroupBase,
        memoryBytes: Math.floor(totalMb * MB),
      });
      // Joined first, while still the caller's uid (which may write the cgroup files).
      if (cgroup !== undefined) argv = joinCgroupsArgv(cgroup.procsFiles, argv);
      break;
    }
    default: {
      const unknown: never = isolation;
      throw new TypeError(`runCommand: unknown isolation ${String(unknown)}.`);
    }
  }

  const mark = isolation === 'none' ? newProcessMark() : undefined;
  return {
    command,
    cwd,
    argv,
    cgroup,
    seccomp,
    spawnCwd: isolation === 'none' ? cwd : '/',
    spawnEnv: mark !== undefined ? { PATH: HOST_PATH, HOME: root, LANG: 'C.UTF-8', ...options.env, [PROCESS_MARK_VARIABLE]: mark } : { PATH: HOST_PATH },
    mark,
  };
}

/**
 * The error for a command that could not be moved into its cgroups, so never ran: the
 * probe's test process could, so something changed since (this process was moved, the
 * cgroup tree was rearranged or its delegation taken back).
 */
export function cgroupJoinError(failure: string): SandboxUnavailableError {
  return new SandboxUnavailableError({
    missing: 'cgroup',
    detail: `the command could not be moved into its cgroup, so it did not run (${failure})`,
    hint:
      'The cgroups probed when this process started can no longer be joined. Restart the process so that ' +
      '`getSandboxSupport()` probes again (it falls back to per-process limits where no cgroup can be joined), ' +
      'or give it back a cgroup it may delegate to.',
  });
}

function totalMemoryMb(limits: CommandLimits): number {
  return limits.totalMemoryMb ?? (limits.memoryMb ?? 1024) + (limits.tmpSizeMb ?? 64) + (limits.shmSizeMb ?? 16);
}

interface SpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  cgroup: CommandCgroup | undefined;
  /** Written to the child's fd `SECCOMP_FD`, where bubblewrap reads it. */
  seccomp: Buffer | undefined;
  signal: AbortSignal | undefined;
  /** Under bubblewrap, where nothing outlives the PID namespace to hold the pipes. */
  isolated: boolean;
  /** Without isolation, the mark of everything the command starts (see `PreparedCommand`). */
  mark: string | undefined;
}

/** A command's result; `aborted` when the signal ended it (not when it came after the command exited). */
function spawnAndCollect(options: SpawnOptions): Promise<{ result: CommandResult; joinFailure: string | undefined; aborted: boolean }> {
  const started = performance.now();
  const output = new OutputBuffer(options.maxOutputBytes);
  return new Promise((resolve) => {
    const child = spawn(options.argv[0] as string, options.argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      // Its own process group, so the timeout can kill everything it started.
      detached: true,
      stdio: jailStdio('ignore', { seccomp: options.seccomp !== undefined, cgroup: options.cgroup !== undefined }),
    });
    writeSeccompProgram(child, options.seccomp);
    const joinFailure = watchCgroupJoin(child);
    // Output after the exit is read while it flows, until the timeout and its kill grace.
    const pipes = options.isolated ? undefined : closePipesAfterExit(child, { graceMs: KILL_GRACE_MS });
    let timedOut = false;
    let spawnError: Error | undefined;
    const { mark } = options;
    const killGroup = (signal: NodeJS.Signals) => {
      killProcessGroup(child, signal);
      if (mark !== undefined) void signalMarkedProcesses(mark, signal).catch(() => 0);
    };
    const forget = mark !== undefined && child.pid !== undefined ? killAtExit(mark, child.pid) : undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (killTimer !== undefined) return;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => {
        killGroup('SIGKILL');
        options.cgroup?.destroy();
        pipes?.closeSoon();
      }, KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    let exited = false;
    let aborted = false;
    child.once('exit', () => {
      exited = true;
    });
    const onAbort = () => {
      // After the exit it only ends what the command left behind (its pipes' holders).
      if (!exited) aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => output.push('stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push('stderr', chunk));
    child.on('error', (error) => {
      spawnError = error;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left behind in its group goes with it, and (without isolation)
      // what left the group, before the answer.
      killProcessGroup(child, 'SIGKILL');
      const swept = mark === undefined ? Promise.resolve(0) : signalMarkedProcesses(mark, 'SIGKILL').catch(() => 0);
      const stderr = output.text('stderr');
      const answer = {
        result: {
          exitCode: spawnError === undefined ? code : 127,
          signal,
          stdout: output.text('stdout'),
          stderr: spawnError === undefined ? stderr : `${stderr}${spawnError.message}\n`,
          timedOut,
          truncated: output.truncated,
          durationMs: performance.now() - started,
        },
        joinFailure: joinFailure(),
        aborted,
      };
      void swept.then(() => {
        forget?.();
        resolve(answer);
      });
    });
  });
}
