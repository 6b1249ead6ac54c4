import * as sandbox from '@toolwire/sandbox';
import type { SandboxBackend } from '../../src/local/sandbox-backend.ts';
import { bwrapRunCommand } from './bwrap-run-command.ts';

// The real @toolwire/sandbox where it provides a function, the bubblewrap stand-in otherwise.
const real = sandbox as Partial<SandboxBackend>;
export const sandboxForTests: Partial<SandboxBackend> = {
  createJsSandbox: real.createJsSandbox,
  runCommand: real.runCommand ?? bwrapRunCommand,
};
