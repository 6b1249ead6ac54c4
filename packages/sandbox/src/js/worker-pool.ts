import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { judgeIdleWorker } from './idle-watch.ts';
import type { IdleBaseline } from './idle-watch.ts';
import type { SandboxResult } from './sandbox-result.ts';
import { POOL_KILL_GRACE_MS, WORKER_WALL_GRACE_MS } from './worker-protocol.ts';
import type { RunRequest, WorkerConfig, WorkerMessage } from './worker-protocol.ts';

/** A run waiting for, or being served by, a worker. */
interface Job {
  request: RunRequest;
  resolve: (result: SandboxResult) => void;
}

const ABORTED = 'The run was aborted by its caller.';

interface Worker {
  child: ChildProcess;
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  rssWatch: NodeJS.Timeout | undefined;
  /** Set when the pool killed the worker: for overrunning its deadline, its memory, or an abort. */
  killedFor: 'timeout' | 'memory' | 'aborted' | undefined;
  stderrTail: string;
  /** CPU time (ms) and clock when the idle watch last took its baseline; reset by every run. */
  idleCpu: IdleBaseline | undefined;
  /** Killed by the idle watch: gets no more runs while it exits. */
  retired: boolean;
}

// The worker entry sits next to this file: `.ts` when run from src/ (tests, Node's type
// stripping), `.js` when run from the build.
const fromSource = import.meta.url.endsWith('.ts');
const workerEntry = fileURLToPath(new URL(fromSource ? './js-worker.ts' : './js-worker.js', import.meta.url));
const MAX_START_FAILURES = 3;
const RSS_POLL_MS = 50;
const PAGE_SIZE = 4096;
// What a worker process (Node plus one idle isolate) uses before any code runs, with room.
const WORKER_BASE_RSS_MB = 192;
// Idle workers are watched too: a run's leftovers must not burn CPU or grow memory between
// runs. Preparing the next isolate takes a few ms; a tenth of a core for a second is not
// that (and a spinning thread gets at least that much even on a loaded machine).
const IDLE_POLL_MS = 250;
const IDLE_CPU_WINDOW_MS = 1000;
const IDLE_CPU_MAX_MS = 100;
// /proc reports CPU time in USER_HZ ticks, 100 per second on Linux.
const MS_PER_TICK = 10;

/**
 * Node permission-model flags for the workers, a seat belt behind the isolates: the
 * worker may read only its own package, isolated-vm and its loader, and may not write
 * files, spawn processes or start threads. Node 24 has no network permission, so the
 * allow-listed fetch still works. Empty when the paths cannot be found (then the
 * isolates are the only barrier, as before).
 */
function permissionFlags(): string[] {
  try {
    const require = createRequire(import.meta.url);
    const ivmEntry = realpathSync(require.resolve('isolated-vm'));
    const loader = realpathSync(createRequire(ivmEntry).resolve('node-gyp-build'));
    const packageDir = fileURLToPath(new URL('../../', import.meta.url));
    return [
      '--permission',
      '--allow-addons',
      '--disable-warning=SecurityWarning',
      `--allow-fs-read=${packageDir}`,
      // The node_modules folder holding isolated-vm: its dependencies resolve from there.
      `--allow-fs-read=${dirname(dirname(ivmEntry))}/`,
      `--allow-fs-read=${dirname(loader)}/`,
      // node-gyp-build checks for it to pick a musl prebuild.
      '--allow-fs-read=/etc/alpine-release',
    ];
  } catch {
    return [];
  }
}
const workerFlags = permissionFlags();

/**
 * A supervised pool of child processes that hold the isolates. A worker that crashes
 * (V8 out-of-memory abort) or overruns its deadline is killed and replaced; the run it
 * served is answered with `crashed` or `timeout`.
 */
export class WorkerPool {
  private readonly workers = new Set<Worker>();
  private readonly queue: Job[] = [];
  private readonly size: number;
  private readonly config: WorkerConfig;
  private readonly maxRssBytes: number;
  private startFailures = 0;
  private disposed = false;
  private idleWatch: NodeJS.Timeout | undefined;

  constructor(options: { size: number; config: WorkerConfig }) {
    this.size = options.size;
    this.config = options.config;
    // An isolate's limit is "a guideline" (an attacker can use 2-3 times it); past this
    // the worker is killed even if V8 has not noticed yet.
    this.maxRssBytes = (WORKER_BASE_RSS_MB + options.config.memoryLimitMb * 4) * 1024 * 1024;
  }

  /**
   * Queues a run; resolves with its result whatever happens to the worker. Aborting
   * `signal` answers `aborted` at once: a queued run is dropped, a running one's worker is
   * killed (the only way to stop code that never yields) and replaced.
   */
  run(request: RunRequest, signal?: AbortSignal): Promise<SandboxResult> {
    if (this.disposed) {
      return Promise.resolve(failure('error', 'This sandbox was disposed; create a new one with createJsSandbox().'));
    }
    if (signal?.aborted === true) return Promise.resolve(failure('aborted', ABORTED));
    return new Promise((resolve) => {
      const onAbort = (): void => this.abort(job);
      const job: Job = {
        request,
        resolve: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  private abort(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      job.resolve(failure('aborted', ABORTED));
      return;
    }
    for (const worker of this.workers) {
      if (worker.job !== job) continue;
      worker.killedFor = 'aborted';
      worker.child.kill('SIGKILL');
    }
  }

  /** Kills every worker; queued and running runs are answered with `crashed`. */
  dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.idleWatch);
    const exits: Promise<void>[] = [];
    for (const worker of this.workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        exits.push(new Promise((resolve) => worker.child.once('exit', () => resolve())));
        worker.child.ref();
        worker.child.kill('SIGKILL');
      }
    }
    for (const job of this.queue.splice(0)) job.resolve(failure('crashed', 'The sandbox was disposed before this run started.'));
    return Promise.all(exits).then(() => undefined);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = [...this.workers].find((w) => w.ready && !w.retired && w.job === undefined);
      if (idle !== undefined) {
        this.assign(idle, this.queue.shift() as Job);
        continue;
      }
      const starting = [...this.workers].filter((w) => !w.ready).length;
      const serving = [...this.workers].filter((w) => !w.retired).length;
      if (serving < this.size && starting < this.queue.length) {
        this.spawnWorker();
        continue;
      }
      break;
    }
    this.updateRefs();
  }

  private assign(worker: Worker, job: Job): void {
    worker.job = job;
    worker.idleCpu = undefined;
    const limit = job.request.timeoutMs + WORKER_WALL_GRACE_MS + POOL_KILL_GRACE_MS;
    worker.timer = setTimeout(() => {
      worker.killedFor = 'timeout';
      worker.child.kill('SIGKILL');
    }, limit);
    const pid = worker.child.pid;
    if (pid !== undefined) {
      worker.rssWatch = setInterval(() => {
        if (residentBytes(pid) > this.maxRssBytes) {
          worker.killedFor = 'memory';
          worker.child.kill('SIGKILL');
        }
      }, RSS_POLL_MS);
    }
    worker.child.send(job.request);
  }

  private spawnWorker(): void {
    const child = spawn(
      process.execPath,
      [
        '--no-node-snapshot',
        '--disable-warning=ExperimentalWarning',
        ...workerFlags,
        workerEntry,
        JSON.stringify(this.config),
      ],
      // No environment: the caller's API keys and tokens never reach the worker.
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {}, serialization: 'json' },
    );
    const worker: Worker = {
      child,
      ready: false,
      job: undefined,
      timer: undefined,
      rssWatch: undefined,
      killedFor: undefined,
      stderrTail: '',
      idleCpu: undefined,
      retired: false,
    };
    this.workers.add(worker);
    this.startIdleWatch();
    child.stderr?.setEncoding('utf8');
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    child.stderr?.on('data', (chunk: string) => {
      worker.stderrTail = (worker.stderrTail + chunk).slice(-2000);
    });
    child.on('message', (message: WorkerMessage) => this.onMessage(worker, message));
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => this.onExit(worker, code, signal));
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        worker.ready = true;
        this.startFailures = 0;
        break;
      case 'result': {
        const job = worker.job;
        if (job === undefined || job.request.id !== message.id) return;
        clearTimeout(worker.timer);
        clearInterval(worker.rssWatch);
        worker.job = undefined;
        job.resolve(message.result);
        break;
      }
      default: {
        const unknown: never = message;
        throw new Error(`unknown worker message ${JSON.stringify(unknown)}`);
      }
    }
    this.dispatch();
  }

  private onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.workers.delete(worker);
    clearTimeout(worker.timer);
    clearInterval(worker.rssWatch);
    const job = worker.job;
    worker.job = undefined;
    if (job !== undefined) {
      job.resolve(exitFailure(worker.killedFor, job.request.timeoutMs, signal ?? `exit code ${code}`, this.config.memoryLimitMb));
    }
    if (this.disposed) return;
    if (!worker.ready) {
      this.startFailures++;
      if (this.startFailures >= MAX_START_FAILURES) {
        const detail = worker.stderrTail.trim().split('\n').slice(-12).join(' ');
        for (const queued of this.queue.splice(0)) {
          queued.resolve(failure('crashed', `The sandbox worker could not start: ${detail || `exit ${code ?? signal}`}`));
        }
        this.startFailures = 0;
      }
    }
    this.dispatch();
  }

  /**
   * Kills (and so replaces) an idle worker that uses CPU or grows past the memory limit
   * between runs: whatever did that is a leftover of a run that has already answered.
   */
  private startIdleWatch(): void {
    if (this.idleWatch !== undefined) return;
    this.idleWatch = setInterval(() => {
      const now = performance.now();
      for (const worker of this.workers) {
        const pid = worker.child.pid;
        if (!worker.ready || worker.retired || worker.job !== undefined || pid === undefined) continue;
        const cpuMs = cpuTimeMs(pid);
        // No /proc here (or the process just went): nothing to judge.
        if (cpuMs === undefined) continue;
        const verdict = judgeIdleWorker({ now, cpuMs, rssBytes: residentBytes(pid) }, worker.idleCpu, {
          maxRssBytes: this.maxRssBytes,
          maxCpuMs: IDLE_CPU_MAX_MS,
          windowMs: IDLE_CPU_WINDOW_MS,
        });
        if (verdict.action === 'replace') this.retire(worker);
        else worker.idleCpu = verdict.baseline;
      }
    }, IDLE_POLL_MS);
    // The watch must not keep the caller's process alive.
    this.idleWatch.unref();
  }

  private retire(worker: Worker): void {
    worker.retired = true;
    worker.child.kill('SIGKILL');
  }

  // Idle workers must not keep the caller's process alive.
  private updateRefs(): void {
    for (const worker of this.workers) {
      const busy = worker.job !== undefined || (!worker.ready && this.queue.length > 0);
      const channel = worker.child.channel as { ref(): void; unref(): void } | null | undefined;
      if (busy) {
        worker.child.ref();
        channel?.ref();
      } else {
        worker.child.unref();
        channel?.unref();
      }
    }
  }
}

function exitFailure(killedFor: Worker['killedFor'], timeoutMs: number, how: string, memoryLimitMb: number): SandboxResult {
  switch (killedFor) {
    case 'timeout':
      return failure('timeout', `The code did not finish within ${timeoutMs} ms; its worker was killed.`);
    case 'memory':
      return failure('memory', `The code used far more than the ${memoryLimitMb} MB memory limit; its worker was killed.`);
    case 'aborted':
      return failure('aborted', ABORTED);
    case undefined:
      return failure('crashed', `The sandbox worker died (${how}) while running this code, probably out of memory; it has been replaced.`);
    default: {
      const unknown: never = killedFor;
      return unknown;
    }
  }
}

/** Resident memory of a process in bytes (Linux `/proc`); 0 where it cannot be read. */
function residentBytes(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
    return Number(fields[1]) * PAGE_SIZE;
  } catch {
    return 0;
  }
}

/** User plus system CPU time of a process in ms (Linux `/proc`); undefined where it cannot be read. */
function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}

function failure(kind: 'error' | 'crashed' | 'timeout' | 'memory' | 'aborted', message: string): SandboxResult {
  return { ok: false, error: { kind, message }, logs: [] };
}
