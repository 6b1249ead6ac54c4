import { createJsSandbox, runCommand } from '@toolwire/sandbox';
import type { JsSandbox, JsSandboxOptions } from '@toolwire/sandbox';

/** The options of `@toolwire/sandbox`'s `runCommand` that the local interpreter sets. */
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
  limits: { memoryMb: number };
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

/** The sandbox functions the local interpreter runs code with; replaceable for other backends. */
export interface SandboxBackend {
  createJsSandbox: CreateJsSandbox;
  runCommand: RunCommand;
}

/** `@toolwire/sandbox`'s functions. */
export const defaultSandboxBackend: SandboxBackend = { createJsSandbox, runCommand };
