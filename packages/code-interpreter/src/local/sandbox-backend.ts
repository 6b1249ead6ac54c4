import type { JsSandbox, JsSandboxOptions } from '@toolwire/sandbox';

/** Options of `@toolwire/sandbox`'s `runCommand`, as the local interpreter uses them. */
export interface RunCommandOptions {
  /** argv, never joined into a shell string. */
  command: string[];
  /** The only writable directory. */
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  env: Record<string, string>;
  network: boolean;
  isolation: 'bubblewrap' | 'none';
}

/** What `runCommand` reports. */
export interface RunCommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

/** `@toolwire/sandbox`'s `runCommand`: runs argv under bubblewrap. */
export type RunCommand = (options: RunCommandOptions) => Promise<RunCommandResult>;

/** `@toolwire/sandbox`'s `createJsSandbox`. */
export type CreateJsSandbox = (options?: JsSandboxOptions) => JsSandbox;

/** The sandbox functions the local interpreter runs code with; injectable for other backends. */
export interface SandboxBackend {
  createJsSandbox: CreateJsSandbox;
  runCommand: RunCommand;
}

/**
 * Loads the sandbox functions from `@toolwire/sandbox` on first use, so a JavaScript-only
 * interpreter never touches bubblewrap and vice versa. A missing export becomes a function
 * that throws, with the message passed in.
 */
export async function loadSandboxBackend(): Promise<Partial<SandboxBackend>> {
  const sandbox = (await import('@toolwire/sandbox')) as Partial<SandboxBackend>;
  return { createJsSandbox: sandbox.createJsSandbox, runCommand: sandbox.runCommand };
}
