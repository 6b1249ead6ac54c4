/** Limits applied before a sandboxed execution starts. */
export interface ExecutionPolicyOptions {
  /** Largest accepted arguments, as UTF-8 bytes of their JSON (default 64 KiB). */
  maxArgumentBytes?: number;
  /** Executions allowed to run at once; further calls are refused, not queued (default 8). */
  maxConcurrent?: number;
}

/** Why the policy refused an execution. */
export type PolicyRejection =
  | { reason: 'arguments-too-large'; message: string; limit: number; actual: number }
  | { reason: 'too-many-concurrent'; message: string; limit: number };

/** The outcome of `policy.run`: the function's value, or a refusal. Never an exception for a limit. */
export type PolicyOutcome<T> = { ok: true; value: T } | { ok: false; rejection: PolicyRejection };

/** Argument-size and concurrency limits shared by every execution that goes through it. */
export interface ExecutionPolicy {
  /** Checks the limits, then runs `fn` while holding a concurrency slot. */
  run<T>(args: unknown, fn: () => Promise<T>): Promise<PolicyOutcome<T>>;
  /** Executions running now. */
  readonly active: number;
}

/**
 * Creates a policy. Share one instance between tools to cap their combined concurrency.
 * @example
 * const policy = createExecutionPolicy({ maxArgumentBytes: 16_384, maxConcurrent: 2 });
 * const outcome = await policy.run(args, () => sandbox.run(code, { input: args }));
 */
export function createExecutionPolicy(options: ExecutionPolicyOptions = {}): ExecutionPolicy {
  const maxArgumentBytes = options.maxArgumentBytes ?? 64 * 1024;
  const maxConcurrent = options.maxConcurrent ?? 8;
  let active = 0;
  return {
    get active() {
      return active;
    },
    async run<T>(args: unknown, fn: () => Promise<T>): Promise<PolicyOutcome<T>> {
      const size = argumentBytes(args);
      if (size > maxArgumentBytes) {
        return {
          ok: false,
          rejection: {
            reason: 'arguments-too-large',
            limit: maxArgumentBytes,
            actual: size,
            message: `The arguments are ${size} bytes; the limit is ${maxArgumentBytes}. Send smaller arguments (e.g. a path or an id instead of the content).`,
          },
        };
      }
      if (active >= maxConcurrent) {
        return {
          ok: false,
          rejection: {
            reason: 'too-many-concurrent',
            limit: maxConcurrent,
            message: `${maxConcurrent} executions are already running; try again when one has finished.`,
          },
        };
      }
      active++;
      try {
        return { ok: true, value: await fn() };
      } finally {
        active--;
      }
    },
  };
}

function argumentBytes(args: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(args);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
}
