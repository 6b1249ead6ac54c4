import type { Readable } from 'node:stream';
import type { Output } from './output.ts';

/** What every command gets: where to write, the environment, and where input comes from. */
export interface CommandContext {
  output: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable & { isTTY?: boolean };
  /** A command that reports its own failure (already printed) sets the exit code here. */
  exitCode?: number;
}
