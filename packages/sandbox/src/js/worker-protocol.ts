import type { SandboxResult } from './sandbox-result.ts';

/** Settings a worker process receives once, as JSON in its first argument. */
export interface WorkerConfig {
  memoryLimitMb: number;
  /** Keep the WebAssembly global (its memory counts only against the worker's RSS limit). */
  allowWebAssembly: boolean;
  allowedDomains: string[];
  allowPrivateNetwork: boolean;
  fetchTimeoutMs: number;
  maxResponseBytes: number;
}

/** One run, sent from the pool to an idle worker. */
export interface RunRequest {
  type: 'run';
  id: number;
  code: string;
  /** `input` as JSON, or undefined when there is none. */
  inputJson: string | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** Messages a worker sends back. */
export type WorkerMessage = { type: 'ready' } | { type: 'result'; id: number; result: SandboxResult };

/** How long past `timeoutMs` the worker waits before disposing a run's isolate. */
export const WORKER_WALL_GRACE_MS = 250;
/** How long past the worker's own deadline the pool waits before killing the worker. */
export const POOL_KILL_GRACE_MS = 1000;
