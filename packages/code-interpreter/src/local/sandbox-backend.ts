import { createJsSandbox, runCommand } from '@toolwire/sandbox';

/**
 * The sandbox functions the local interpreter runs code with: `@toolwire/sandbox`'s own by
 * default, replaceable (tests, other isolation backends) with functions of the same types.
 */
export interface SandboxBackend {
  createJsSandbox: typeof createJsSandbox;
  runCommand: typeof runCommand;
}

/** `@toolwire/sandbox`'s functions. */
export const defaultSandboxBackend: SandboxBackend = { createJsSandbox, runCommand };
