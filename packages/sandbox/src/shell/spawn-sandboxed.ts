import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { emitAudit } from '../policy/audit-event.ts';
import type { AuditHandler } from '../policy/audit-event.ts';
import { checkDurationMs } from '../policy/check-duration.ts';
import { hashArguments } from '../policy/hash-arguments.ts';
import { closePipesAfterExit, jailStdio, killProcessGroup, watchCgroupJoin, writeSeccompProgram } from './jail-process.ts';
import { killAtExit, signalMarkedProcesses } from './process-mark.ts';
import { cgroupJoinError, prepareCommand } from './run-command.ts';
import type { CommandLimits } from './run-command.ts';

/** Options of `spawnSandboxed`: `runCommand`'s isolation for a process that keeps running. */
export interface SpawnSandboxedOptions {
  /** The program and its arguments, passed to execvp; never joined into a shell string. */
  command: readonly string[];
  /** Where the process starts. */
  cwd: string;
  /** The writable directory (default `cwd`); `cwd` must be inside it. Nothing else is writable. */
  root?: string;
  /** Variables added to the cleared environment (which has only PATH, HOME and LANG). */
  env?: Record<string, string>;
  /** Give the process network access (default false: a private network namespace). */
  network?: boolean;
  /** `'none'` runs without isolation; only pass it knowingly (default `'bubblewrap'`). */
  isolation?: 'bubblewrap' | 'none';
  /** As `runCommand`'s, except that CPU time is unlimited unless `cpuSeconds` is set. */
  limits?: CommandLimits;
  /** Host paths bound read-only at their own path inside the sandbox (a runtime, a server's code). */
  readOnlyPaths?: readonly string[];
  /** Kill the process group after this long, if set (default: no lifetime limit). */
  maxLifetimeMs?: number;
  /** Receives one audit event when the process ends. */
  onAudit?: AuditHandler;
  /** Tool name for the audit event (default `process`). */
  auditTool?: string;
  /** Who asked, for the audit event. */
  principal?: string;
}

/** How a sandboxed process ended; `exitCode` is null when a signal ended it. */
export interface SandboxedProcessExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when it could not be started at all. */
  spawnError?: string;
  /** Ended by `kill()` or `maxLifetimeMs`. */
  killed: boolean;
}

/** A running sandboxed process with its three pipes. */
export interface SandboxedProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once the process and its whole group are gone; never rejects. */
  readonly exited: Promise<SandboxedProcessExit>;
  /** Ends the whole process group: TERM, then KILL after a grace period. Resolves on exit. */
  kill(): Promise<SandboxedProcessExit>;
}

const KILL_GRACE_MS = 500;
const PIPES_AFTER_EXIT_MS = 5000;

/**
 * Starts a long-lived process (a stdio server) under the same isolation as `runCommand`
 * (bubblewrap, read-only root, one writable directory, no network by default, prlimit
 * limits, a pids cgroup, a scrubbed environment) with stdin, stdout and stderr as pipes.
 * The caller reads its output as it comes and bounds it; `kill()` ends the whole group,
 * and bubblewrap's die-with-parent ends it with the host process. Throws
 * `SandboxUnavailableError` where bubblewrap cannot run, unless `isolation: 'none'`.
 * @example
 * const server = spawnSandboxed({ command: ['node', 'server.js'], cwd: workDir, readOnlyPaths: [serverDir] });
 * server.stdout.on('data', onOutput);
 * server.stdin.write('{"jsonrpc":"2.0",…}\n');
 * await server.kill();
 */
export function spawnSandboxed(options: SpawnSandboxedOptions): SandboxedProcess {
  if (options.maxLifetimeMs !== undefined) checkDurationMs(options.maxLifetimeMs, 'spawnSandboxed: `maxLifetimeMs`');
  const startedAt = new Date();
  const started = performance.now();
  const prepared = prepareCommand(options, { caller: 'spawnSandboxed', cpuSeconds: undefined });
  // Without a PID namespace, what the process starts is found by a mark in its environment,
  // which a process that leaves the group (setsid, a double fork) still carries.
  const { mark } = prepared;
  const child = spawn(prepared.argv[0] as string, prepared.argv.slice(1), {
    cwd: prepared.spawnCwd,
    env: prepared.spawnEnv,
    // Its own process group, so kill() reaches everything it started.
    detached: true,
    stdio: jailStdio('pipe', { seccomp: prepared.seccomp !== undefined, cgroup: prepared.cgroup !== undefined }),
  });
  writeSeccompProgram(child, prepared.seccomp);
  const joinFailure = watchCgroupJoin(child);
  const { stdin, stdout, stderr } = child;
  // jailStdio('pipe', …) pipes all three; node makes them even when the spawn fails.
  if (stdin === null || stdout === null || stderr === null) throw new Error('spawnSandboxed: the child was spawned without stdio pipes.');
  // Under bubblewrap nothing outlives the PID namespace to hold the pipes. Without it,
  // output after the exit is read while it flows, for PIPES_AFTER_EXIT_MS at most.
  const pipes = options.isolation === 'none' ? closePipesAfterExit(child, { graceMs: KILL_GRACE_MS, capMs: PIPES_AFTER_EXIT_MS }) : undefined;
  let killed = false;
  let leftoversKilled = false;
  let lifetimeHit = false;
  let lifetimeTimer: NodeJS.Timeout | undefined;
  let spawnError: string | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: NodeJS.Signals) => killProcessGroup(child, signal);
  const forget = mark !== undefined && child.pid !== undefined ? killAtExit(mark, child.pid) : undefined;
  // A write to a process that died is answered by its exit, not by an unhandled error.
  stdin.on('error', () => undefined);
  child.on('error', (error) => {
    spawnError = error.message;
  });
  const exited = new Promise<SandboxedProcessExit>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killTimer);
      clearTimeout(lifetimeTimer);
      killGroup('SIGKILL');
      if (mark === undefined) settle(code, signal);
      else {
        // What left the group (and so outlived the kill above) goes too, before `exited` settles.
        void signalMarkedProcesses(mark, 'SIGKILL')
          .catch(() => 0)
          .then(() => {
            forget?.();
            settle(code, signal);
          });
      }
    });
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      prepared.cgroup?.destroy();
      const failure = joinFailure();
      // It never started: not the command's own exit 125.
      if (failure !== undefined) spawnError ??= cgroupJoinError(failure).message;
      const exit: SandboxedProcessExit = { exitCode: spawnError === undefined ? code : 127, signal, killed };
      if (spawnError !== undefined) exit.spawnError = spawnError;
      emitAudit(options.onAudit, {
        kind: 'shell',
        tool: options.auditTool ?? 'process',
        ...(options.principal === undefined ? {} : { principal: options.principal }),
        argumentsHash: hashArguments({ command: prepared.command, cwd: prepared.cwd }),
        startedAt: startedAt.toISOString(),
        durationMs: performance.now() - started,
        outcome: killed ? 'aborted' : code === 0 ? 'ok' : 'nonzero-exit',
        limitsHit: lifetimeHit ? ['timeout'] : [],
        exitCode: exit.exitCode,
      });
      resolve(exit);
    };
  });
  const kill = (): Promise<SandboxedProcessExit> => {
    if (!killed && child.exitCode === null && child.signalCode === null) {
      killed = true;
      killGroup('SIGTERM');
      if (mark !== undefined) void signalMarkedProcesses(mark, 'SIGTERM').catch(() => 0);
      killTimer = setTimeout(() => {
        killGroup('SIGKILL');
        if (mark !== undefined) void signalMarkedProcesses(mark, 'SIGKILL').catch(() => 0);
        pipes?.closeSoon();
      }, KILL_GRACE_MS);
    } else if (!leftoversKilled && mark !== undefined) {
      // It exited on its own, and what it left (outside its group, holding its pipes) goes
      // now, not when the pipes are given up on.
      leftoversKilled = true;
      void signalMarkedProcesses(mark, 'SIGKILL').catch(() => 0);
      pipes?.closeSoon();
    }
    return exited;
  };
  if (options.maxLifetimeMs !== undefined) {
    lifetimeTimer = setTimeout(() => {
      lifetimeHit = true;
      void kill();
    }, options.maxLifetimeMs);
  }
  return { pid: child.pid, stdin, stdout, stderr, exited, kill };
}
