import { Worker } from 'node:worker_threads';
import { defineTool } from '@toolwire/core';
import type { CalculateJob, CalculateWorkerMessage } from './calculate-worker.ts';

const MAX_EXPRESSION_LENGTH = 500;

/** How long one evaluation may run before its worker is terminated (loading mathjs not counted). */
export const DEFAULT_CALCULATE_TIMEOUT_MS = 2_000;

/** How long a new worker may take to load mathjs before the call gives up on it. */
const START_TIMEOUT_MS = 30_000;
/** Worker threads evaluating at once; more calls wait for one. */
const MAX_WORKERS = 2;
/** An idle worker is kept this long for the next call, then ended (it holds mathjs, ~30 MB). */
const IDLE_MS = 60_000;
// The worker's heap, apart from the gateway's: an expression that builds something huge
// runs the worker out of memory, not the gateway.
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };

// The source runs as `.ts` (tests, `--conditions=@toolwire/source`), the build as `.js`.
const workerUrl = new URL(import.meta.url.endsWith('.ts') ? './calculate-worker.ts' : './calculate-worker.js', import.meta.url);

/** Options of `calculate`. */
export interface CalculateOptions {
  /** Stops the evaluation (its worker is terminated) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Evaluation time before the worker is terminated (default 2 000 ms). */
  timeoutMs?: number;
}

interface PooledWorker {
  worker: Worker;
  /** What ended the worker, when it failed (out of memory, a crash). */
  failure?: Error;
  /** Resolves once mathjs is loaded; rejects if the worker died while loading. */
  ready: Promise<void>;
  idleTimer?: ReturnType<typeof setTimeout>;
}

/**
 * Workers evaluating expressions. A worker whose evaluation ran out of time (or was
 * aborted) is terminated, never reused; the next call starts a fresh one.
 */
class CalculatorPool {
  readonly #idle: PooledWorker[] = [];
  readonly #waiting: (() => void)[] = [];
  #live = 0;

  /** Live worker threads (busy or idle): for tests that check a stopped evaluation left none running. */
  get live(): number {
    return this.#live;
  }

  #spawn(): PooledWorker {
    const worker = new Worker(workerUrl, { resourceLimits: RESOURCE_LIMITS });
    worker.unref();
    this.#live++;
    let exited = false;
    worker.once('exit', () => {
      exited = true;
      this.#live--;
      const index = this.#idle.findIndex((p) => p.worker === worker);
      if (index >= 0) this.#idle.splice(index, 1);
      this.#wakeOne();
    });
    const pooled: PooledWorker = { worker, ready: Promise.resolve() };
    // Errors (out of memory included) end the worker; the call waiting on it is told by `run`.
    worker.on('error', (error: Error) => {
      pooled.failure = error;
    });
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: CalculateWorkerMessage): void => {
        if (message.type !== 'ready') return;
        worker.off('message', onMessage);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('exit', () => {
        if (exited) reject(new Error('The calculator could not start.'));
      });
    });
    // Whoever awaits `ready` handles a failed start; nobody else must see it unhandled.
    ready.catch(() => undefined);
    pooled.ready = ready;
    return pooled;
  }

  #wakeOne(): void {
    this.#waiting.shift()?.();
  }

  async #acquire(signal: AbortSignal | undefined): Promise<PooledWorker> {
    for (;;) {
      signal?.throwIfAborted();
      const idle = this.#idle.pop();
      if (idle !== undefined) {
        clearTimeout(idle.idleTimer);
        return idle;
      }
      if (this.#live < MAX_WORKERS) return this.#spawn();
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const index = this.#waiting.indexOf(wake);
          if (index >= 0) this.#waiting.splice(index, 1);
          reject(signal?.reason as Error);
        };
        const wake = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        this.#waiting.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  #release(pooled: PooledWorker): void {
    pooled.idleTimer = setTimeout(() => void pooled.worker.terminate(), IDLE_MS);
    pooled.idleTimer.unref();
    this.#idle.push(pooled);
    this.#wakeOne();
  }

  async run(expression: string, options: CalculateOptions): Promise<string> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? DEFAULT_CALCULATE_TIMEOUT_MS;
    const pooled = await this.#acquire(signal);
    const { worker } = pooled;
    return new Promise<string>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const cleanup = (): void => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
      };
      // The only way to stop synchronous work in a thread is to end the thread.
      const stop = (error: unknown): void => {
        cleanup();
        void worker.terminate();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const onAbort = (): void => stop(signal?.reason);
      const onExit = (): void => {
        cleanup();
        const code = (pooled.failure as { code?: unknown } | undefined)?.code;
        reject(
          code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new Error('The calculation used more memory than the calculator allows and was stopped. Split it into smaller steps.')
            : new Error(`The calculator stopped unexpectedly (${pooled.failure?.message ?? 'no reason given'}); retry the call.`),
        );
      };
      const onMessage = (message: CalculateWorkerMessage): void => {
        if (message.type === 'ready') return;
        cleanup();
        this.#release(pooled);
        if (message.type === 'result') resolve(message.result);
        else reject(new Error(message.message));
      };
      if (signal?.aborted === true) {
        stop(signal.reason);
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      // Until mathjs is loaded, only a start deadline runs; the evaluation's own starts after.
      timer = setTimeout(() => stop(new Error('The calculator did not start in time; retry the call.')), START_TIMEOUT_MS);
      pooled.ready.then(
        () => {
          if (settled) return;
          clearTimeout(timer);
          timer = setTimeout(
            () => stop(new Error(`The calculation took longer than ${timeoutMs} ms and was stopped. Simplify the expression or split it into smaller steps.`)),
            timeoutMs,
          );
          worker.postMessage({ expression } satisfies CalculateJob);
        },
        () => {
          cleanup();
          reject(new Error('The calculator could not start; retry the call.'));
        },
      );
    });
  }
}

const pool = new CalculatorPool();

/** Live calculator worker threads (for tests: a stopped evaluation leaves none running). */
export function liveCalculatorWorkers(): number {
  return pool.live;
}

/**
 * Evaluates an arithmetic expression with mathjs in a restricted scope (no imports, no
 * parsing from inside, no assignments or function definitions, no large structures, bounded
 * operands), in a worker thread that is terminated when `timeoutMs` passes or `signal`
 * aborts: a timeout means the evaluation stopped. Never `eval` or `Function`. Rejects with
 * an `Error` written for the model.
 */
export async function calculate(expression: string, options: CalculateOptions = {}): Promise<string> {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new Error(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters. Split it into smaller steps.`);
  }
  return pool.run(expression, options);
}

/** The built-in `calculate` tool. */
export const calculateTool = defineTool({
  name: 'calculate',
  description: 'Evaluate a math expression (arithmetic, functions such as sqrt/sin/log, unit conversions like "5 cm to inch").',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string', description: 'The expression, e.g. "2 * (3 + 4)" or "sqrt(2)".' } },
    required: ['expression'],
    additionalProperties: false,
  },
  async execute(args, context) {
    const expression = args.expression;
    if (typeof expression !== 'string' || expression.trim() === '') {
      throw new Error('"expression" must be a non-empty string, e.g. {"expression": "2 + 2"}.');
    }
    return { expression, result: await calculate(expression, { signal: context.signal }) };
  },
});
