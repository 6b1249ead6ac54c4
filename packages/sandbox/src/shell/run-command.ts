import { spawn } from 'node:child_process';
import { emitAudit } from '../policy/audit-event.ts';
import type { AuditHandler } from '../policy/audit-event.ts';
import { hashArguments } from '../policy/hash-arguments.ts';
import { OutputBuffer } from './output-buffer.ts';
import type { PidsCgroup } from './pids-cgroup.ts';
import { buildSandboxArgv } from './sandbox-argv.ts';
import type { CommandLimits } from './sandbox-argv.ts';

export type { CommandLimits } from './sandbox-argv.ts';

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
  const prepared = buildSandboxArgv({
    ...options,
    defaultCpuSeconds: Math.ceil(timeoutMs / 1000) + 1,
    caller: 'runCommand',
  });
  const { command, cgroup } = prepared;

  let result: CommandResult;
  try {
    result = await spawnAndCollect({
      argv: prepared.argv,
      cwd: prepared.cwd,
      env: prepared.env,
      timeoutMs,
      maxOutputBytes,
      cgroup,
    });
  } finally {
    cgroup?.destroy();
  }
  emitAudit(options.onAudit, {
    kind: 'shell',
    tool: options.auditTool ?? 'command',
    ...(options.principal === undefined ? {} : { principal: options.principal }),
    argumentsHash: hashArguments({ command, cwd: prepared.commandCwd }),
    startedAt: startedAt.toISOString(),
    durationMs: result.durationMs,
    outcome: result.timedOut ? 'timeout' : result.exitCode === 0 ? 'ok' : 'nonzero-exit',
    limitsHit: [...(result.timedOut ? ['timeout'] : []), ...(result.truncated ? ['output'] : [])],
    exitCode: result.exitCode,
  });
  return result;
}

interface SpawnOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  cgroup: PidsCgroup | undefined;
}

function spawnAndCollect(options: SpawnOptions): Promise<CommandResult> {
  const started = performance.now();
  const output = new OutputBuffer(options.maxOutputBytes);
  return new Promise((resolve) => {
    const child = spawn(options.argv[0] as string, options.argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      // Its own process group, so the timeout can kill everything it started.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let spawnError: Error | undefined;
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => {
        killGroup('SIGKILL');
        options.cgroup?.destroy();
      }, KILL_GRACE_MS);
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => output.push('stdout', chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push('stderr', chunk));
    child.on('error', (error) => {
      spawnError = error;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      // Whatever the command left behind in its group goes with it.
      killGroup('SIGKILL');
      const stderr = output.text('stderr');
      resolve({
        exitCode: spawnError === undefined ? code : 127,
        signal,
        stdout: output.text('stdout'),
        stderr: spawnError === undefined ? stderr : `${stderr}${spawnError.message}\n`,
        timedOut,
        truncated: output.truncated,
        durationMs: performance.now() - started,
      });
    });
  });
}
