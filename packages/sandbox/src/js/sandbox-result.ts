/** Why a sandboxed run failed. */
export type SandboxErrorKind = 'timeout' | 'memory' | 'output-limit' | 'error' | 'crashed' | 'aborted';

/** CPU and wall-clock time a successful run took, in milliseconds. */
export interface SandboxStats {
  cpuMs: number;
  wallMs: number;
}

/**
 * The outcome of `JsSandbox.run`. `value` is the script's completion value (awaited if it
 * is a promise) as plain JSON data; `logs` holds what `console.log` printed, byte-capped.
 */
export type SandboxResult =
  | { ok: true; value: unknown; logs: string[]; stats: SandboxStats }
  | { ok: false; error: { kind: SandboxErrorKind; message: string }; logs: string[] };
