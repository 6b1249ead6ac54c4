import { availableParallelism } from 'node:os';
import { emitAudit } from '../policy/audit-event.ts';
import type { AuditHandler } from '../policy/audit-event.ts';
import { checkDurationMs, durationProblem, isValidDurationMs } from '../policy/check-duration.ts';
import { hashArguments } from '../policy/hash-arguments.ts';
import type { SandboxErrorKind, SandboxResult } from './sandbox-result.ts';
import { WorkerPool } from './worker-pool.ts';

/** Settings of a JavaScript sandbox; every field has a default. */
export interface JsSandboxOptions {
  /**
   * Memory limit per run in MB (default 64, minimum 8): the isolate's heap and its
   * ArrayBuffers. Past it the run is answered `memory`; the worker process is also killed
   * if its resident memory passes 192 MB + 4 × this limit.
   */
  memoryLimitMb?: number;
  /**
   * Keep `WebAssembly` available (default false). WebAssembly memories live outside the
   * isolate's heap limit: with this on, they are bounded only by the worker's resident
   * memory limit (192 MB + 4 × `memoryLimitMb`), past which the worker is killed.
   */
  allowWebAssembly?: boolean;
  /** Limit per run in ms (default 1000); a wall-clock deadline backs it up. */
  timeoutMs?: number;
  /** Hosts `fetch` may reach: exact names or `*.example.com` (default none: no network). */
  allowedDomains?: string[];
  /** Let `fetch` reach loopback, private and link-local addresses (default false). */
  allowPrivateNetwork?: boolean;
  /** Cap on the result's JSON and, separately, on captured logs and on an error's message, in bytes (default 1 MiB). */
  maxOutputBytes?: number;
  /** Cap on a fetched response body in bytes (default 1 MiB). */
  maxResponseBytes?: number;
  /** Deadline of one fetch, redirects included (default 10 s). */
  fetchTimeoutMs?: number;
  /** Worker processes (default: the number of CPUs, at most 4). */
  poolSize?: number;
  /** Receives one audit event per run. */
  onAudit?: AuditHandler;
  /** Tool name recorded in audit events (default `js`). */
  auditTool?: string;
}

/** Per-run options. */
export interface JsRunOptions {
  /** Copied into the sandbox as the global `input` (must be JSON data). */
  input?: unknown;
  /** Overrides the sandbox's `timeoutMs` for this run. */
  timeoutMs?: number;
  /** Who asked, for the audit event. */
  principal?: string;
  /** Aborting stops the run: a queued run never starts, a running one's worker is killed (and replaced). */
  signal?: AbortSignal;
}

/** A pool of isolates for untrusted JavaScript. */
export interface JsSandbox {
  /**
   * Runs `code` (a script) and resolves with its completion value, awaited if it is a
   * promise, as JSON data. Never rejects for anything the code does.
   */
  run(code: string, options?: JsRunOptions): Promise<SandboxResult>;
  /** Kills the worker processes. Runs after this resolve with an error result. */
  dispose(): Promise<void>;
}

/**
 * Creates a JavaScript sandbox: isolated-vm isolates in a supervised pool of child
 * processes, with a memory limit, a timeout, captured `console.log` and an allow-listed
 * `fetch`. Nothing the code does (crash, hang, memory bomb) reaches the caller's process.
 * @example
 * const sandbox = createJsSandbox({ timeoutMs: 500 });
 * const result = await sandbox.run('input.a + input.b', { input: { a: 1, b: 2 } });
 * if (result.ok) console.log(result.value); // 3
 * await sandbox.dispose();
 */
export function createJsSandbox(options: JsSandboxOptions = {}): JsSandbox {
  const timeoutMs = options.timeoutMs ?? 1000;
  checkDurationMs(timeoutMs, 'createJsSandbox: `timeoutMs`');
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  const pool = new WorkerPool({
    size: options.poolSize ?? Math.max(1, Math.min(4, availableParallelism())),
    config: {
      memoryLimitMb: Math.max(8, options.memoryLimitMb ?? 64),
      allowWebAssembly: options.allowWebAssembly ?? false,
      allowedDomains: [...(options.allowedDomains ?? [])],
      allowPrivateNetwork: options.allowPrivateNetwork ?? false,
      fetchTimeoutMs: options.fetchTimeoutMs ?? 10_000,
      maxResponseBytes: options.maxResponseBytes ?? 1024 * 1024,
    },
  });
  let nextId = 1;

  return {
    async run(code: string, runOptions: JsRunOptions = {}): Promise<SandboxResult> {
      const startedAt = new Date();
      const runTimeoutMs = runOptions.timeoutMs ?? timeoutMs;
      let result: SandboxResult;
      let inputJson: string | undefined;
      try {
        inputJson = runOptions.input === undefined ? undefined : JSON.stringify(runOptions.input);
      } catch (error) {
        inputJson = undefined;
        result = {
          ok: false,
          error: { kind: 'error', message: `The input is not JSON data: ${error instanceof Error ? error.message : 'unknown'}` },
          logs: [],
        };
      }
      if (!isValidDurationMs(runTimeoutMs)) {
        result = {
          ok: false,
          error: { kind: 'error', message: durationProblem("The run's `timeoutMs`", runTimeoutMs) },
          logs: [],
        };
      }
      result ??= await pool.run(
        {
          type: 'run',
          id: nextId++,
          code,
          inputJson,
          timeoutMs: runTimeoutMs,
          maxOutputBytes,
        },
        runOptions.signal,
      );
      if (options.onAudit !== undefined) {
        emitAudit(options.onAudit, {
          kind: 'js',
          tool: options.auditTool ?? 'js',
          ...(runOptions.principal === undefined ? {} : { principal: runOptions.principal }),
          argumentsHash: hashArguments({ code, input: inputJson }),
          startedAt: startedAt.toISOString(),
          durationMs: Date.now() - startedAt.getTime(),
          outcome: result.ok ? 'ok' : result.error.kind,
          limitsHit: result.ok ? [] : limitsOf(result.error.kind),
        });
      }
      return result;
    },
    dispose(): Promise<void> {
      return pool.dispose();
    },
  };
}

function limitsOf(kind: SandboxErrorKind): string[] {
  switch (kind) {
    case 'timeout':
      return ['timeout'];
    case 'memory':
      return ['memory'];
    case 'output-limit':
      return ['output'];
    case 'crashed':
      return ['crashed'];
    case 'error':
    case 'aborted':
      return [];
    default: {
      const unknown: never = kind;
      return [unknown];
    }
  }
}
