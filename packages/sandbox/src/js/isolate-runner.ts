import ivm from 'isolated-vm';
// Not guarded-fetch.ts: that pulls in @toolwire/core, which this process does not need.
import { createFetchGuard } from '../fetch/fetch-guard.ts';
import type { GuardedFetch } from '../fetch/fetch-guard.ts';
import { LogCollector } from './log-collector.ts';
import { SANDBOX_SHIM } from './sandbox-shim.ts';
import type { SandboxErrorKind, SandboxResult } from './sandbox-result.ts';
import { WORKER_WALL_GRACE_MS } from './worker-protocol.ts';
import type { RunRequest, WorkerConfig } from './worker-protocol.ts';

/** One run's isolate, made ahead of the run and disposed when the run answers. */
interface PreparedContext {
  isolate: ivm.Isolate;
  context: ivm.Context;
  finish: ivm.Reference;
  logs: { current: LogCollector | undefined };
  /** Aborts the run's fetches when the run answers, so no late answer reaches anything. */
  fetches: AbortController;
  /** True while the run is on; the shim checks it before resuming code after a fetch. */
  live: { current: boolean };
}

/** The envelope the shim's `finish` resolves to (checked field by field: it comes from the sandbox). */
interface Envelope {
  ok: unknown;
  json?: unknown;
  name?: unknown;
  message?: unknown;
}

// Messages V8 gives when an allocation inside the isolate fails without killing it.
const MEMORY_MESSAGES = ['Array buffer allocation failed', 'Invalid string length', 'Invalid array length', 'Invalid typed array length'];

/**
 * Runs jobs in isolated-vm inside a worker process: a fresh isolate per run (prepared
 * ahead so a warm run only pays for the code), disposed as soon as the run answers, and a
 * wall-clock deadline that disposes it earlier when the CPU timeout does not stop a run.
 *
 * "The run answered" must mean "its code stopped": work a run queues (a continuation of a
 * bridged fetch) would otherwise run on the isolate later, outside the run's timeout and
 * memory limit. So when a run answers its fetches are aborted, a fetch answer arriving
 * later resumes nothing (the shim asks `live` first), and the isolate is disposed. The
 * shim also removes FinalizationRegistry and Atomics.waitAsync, which wake code up later.
 */
export class IsolateRunner {
  private prepared: Promise<PreparedContext> | undefined;
  private readonly config: WorkerConfig;
  private readonly fetch: GuardedFetch;

  constructor(config: WorkerConfig) {
    this.config = config;
    this.fetch = createFetchGuard(
      {
        allowedDomains: config.allowedDomains,
        allowPrivateNetwork: config.allowPrivateNetwork,
        timeoutMs: config.fetchTimeoutMs,
        maxResponseBytes: config.maxResponseBytes,
      },
      (url, reason) => new Error(`Fetch of ${url} refused: ${reason}.`),
    );
  }

  /** Creates the next run's context now, so the run does not wait for it. */
  prepare(): void {
    if (this.prepared !== undefined) return;
    const prepared = this.createContext();
    // A failure surfaces when a run awaits it; until then it must not count as unhandled.
    prepared.catch(() => undefined);
    this.prepared = prepared;
  }

  /** Runs one request in a fresh isolate; always resolves, whatever the code does. */
  async run(request: RunRequest): Promise<SandboxResult> {
    const logs = new LogCollector(request.maxOutputBytes);
    let prepared: PreparedContext;
    try {
      this.prepare();
      prepared = await (this.prepared as Promise<PreparedContext>);
    } catch (error) {
      return failure('crashed', `The sandbox could not create a context: ${messageOf(error)}`, logs);
    } finally {
      this.prepared = undefined;
    }
    prepared.logs.current = logs;
    prepared.live.current = true;
    const isolate = prepared.isolate;
    const cpuStart = isolate.cpuTime;
    const wallStart = performance.now();
    let wallDeadlineHit = false;
    // The CPU timeout misses some runs (a promise that never settles, a getter looping
    // while an error is copied out); disposing the isolate stops those.
    const deadline = setTimeout(() => {
      wallDeadlineHit = true;
      if (!isolate.isDisposed) isolate.dispose();
    }, request.timeoutMs + WORKER_WALL_GRACE_MS);
    try {
      const envelope = (await prepared.finish.apply(undefined, [request.code, request.inputJson, request.maxOutputBytes], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        timeout: request.timeoutMs,
      })) as Envelope | null;
      const wallMs = performance.now() - wallStart;
      const cpuMs = isolate.isDisposed ? wallMs : Number(isolate.cpuTime - cpuStart) / 1e6;
      return this.fromEnvelope(envelope, logs, { cpuMs, wallMs }, request.maxOutputBytes);
    } catch (error) {
      const message = messageOf(error);
      if (wallDeadlineHit) {
        return failure('timeout', `The code did not finish within ${request.timeoutMs} ms and was stopped.`, logs);
      }
      if (isolate.isDisposed || message.includes('memory limit')) {
        return failure(
          'memory',
          `The code exceeded the ${this.config.memoryLimitMb} MB memory limit and was stopped.`,
          logs,
        );
      }
      if (message.includes('timed out')) {
        return failure('timeout', `The code ran longer than ${request.timeoutMs} ms and was stopped.`, logs);
      }
      return failure('error', message, logs);
    } finally {
      clearTimeout(deadline);
      // The run has answered: nothing it started may go on. Its fetches are cut off, its
      // logs no longer collected, and its isolate (with whatever it queued) disposed.
      prepared.live.current = false;
      prepared.fetches.abort();
      prepared.logs.current = undefined;
      if (!isolate.isDisposed) isolate.dispose();
    }
  }

  private fromEnvelope(
    envelope: Envelope | null,
    logs: LogCollector,
    stats: { cpuMs: number; wallMs: number },
    maxOutputBytes: number,
  ): SandboxResult {
    if (envelope === null || typeof envelope !== 'object') return failure('error', 'The sandbox returned no result.', logs);
    if (envelope.ok === true) {
      if (envelope.json === undefined) return { ok: true, value: undefined, logs: logs.lines, stats };
      if (typeof envelope.json !== 'string') return failure('error', 'The sandbox returned a malformed result.', logs);
      if (Buffer.byteLength(envelope.json, 'utf8') > maxOutputBytes) {
        return failure('output-limit', `The result is larger than ${maxOutputBytes} bytes as JSON.`, logs);
      }
      return { ok: true, value: JSON.parse(envelope.json) as unknown, logs: logs.lines, stats };
    }
    // The shim cuts both already; cut again, as everything else in the envelope is checked.
    const name = typeof envelope.name === 'string' ? envelope.name.slice(0, 256) : 'Error';
    const message = typeof envelope.message === 'string' ? envelope.message.slice(0, maxOutputBytes + 64) : 'unknown error';
    if (name === 'OutputLimit') return failure('output-limit', message, logs);
    const kind: SandboxErrorKind =
      name === 'RangeError' && MEMORY_MESSAGES.some((m) => message.includes(m)) ? 'memory' : 'error';
    return failure(kind, `${name}: ${message}`, logs);
  }

  private async createContext(): Promise<PreparedContext> {
    const isolate = new ivm.Isolate({
      memoryLimit: this.config.memoryLimitMb,
      // V8 cannot be trusted to recover from this; the pool notices the exit and respawns.
      onCatastrophicError: () => process.kill(process.pid, 'SIGKILL'),
    });
    try {
      const context = await isolate.createContext();
      const logs: PreparedContext['logs'] = { current: undefined };
      const fetches = new AbortController();
      const live = { current: false };
      const hostLive = new ivm.Callback(() => live.current, { sync: true });
      const hostLog = new ivm.Callback((line: unknown) => logs.current?.add(String(line)) ?? false, { sync: true });
      const hostFetch = new ivm.Reference(async (url: unknown, initJson: unknown) => this.bridgeFetch(url, initJson, fetches.signal));
      const finish: ivm.Reference = await context.evalClosure(SANDBOX_SHIM, [hostLog, hostFetch, this.config.allowWebAssembly, hostLive], {
        result: { reference: true },
      });
      return { isolate, context, finish, logs, fetches, live };
    } catch (error) {
      if (!isolate.isDisposed) isolate.dispose();
      throw error;
    }
  }

  // Always resolves: a rejected promise handed back through isolated-vm would surface as
  // an unhandled rejection in this process.
  private async bridgeFetch(url: unknown, initJson: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    try {
      if (signal.aborted) return { ok: false, message: 'The run has ended.' };
      const init = typeof initJson === 'string' ? (JSON.parse(initJson) as Record<string, unknown>) : {};
      const headers: Record<string, string> = {};
      if (init.headers !== null && typeof init.headers === 'object') {
        for (const [name, value] of Object.entries(init.headers)) headers[name] = String(value);
      }
      const response = await this.fetch(String(url), {
        method: typeof init.method === 'string' ? init.method : 'GET',
        headers,
        ...(typeof init.body === 'string' ? { body: init.body } : {}),
        signal,
      });
      return { ok: true, ...response };
    } catch (error) {
      return { ok: false, message: messageOf(error) };
    }
  }
}

function failure(kind: SandboxErrorKind, message: string, logs: LogCollector): SandboxResult {
  return { ok: false, error: { kind, message }, logs: logs.lines };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'unknown error';
}
