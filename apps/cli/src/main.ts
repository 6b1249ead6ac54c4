import { CommanderError } from 'commander';
import { CliError, ReportedError } from './cli-error.ts';
import type { CommandContext } from './context.ts';
import { createOutput, eprintln, style } from './output.ts';
import { createProgram } from './program.ts';
import { visible } from './terminal-text.ts';

/** Process-level streams and environment, injectable for tests. */
export interface MainIo {
  out: CommandContext['output']['out'] & { isTTY?: boolean };
  err: CommandContext['output']['err'] & { isTTY?: boolean };
  stdin: CommandContext['stdin'];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Runs the CLI and resolves to its exit code: 0 success, 1 failure, 2 usage error.
 * Errors are one line with a hint; stack traces only with `--debug`.
 */
export async function main(argv: readonly string[], io?: Partial<MainIo>): Promise<number> {
  const debug = argv.includes('--debug');
  const output = createOutput({
    out: io?.out ?? process.stdout,
    err: io?.err ?? process.stderr,
    env: io?.env ?? process.env,
    debug,
  });
  const context: CommandContext = {
    output,
    env: io?.env ?? process.env,
    cwd: io?.cwd ?? process.cwd(),
    stdin: io?.stdin ?? process.stdin,
  };
  const program = createProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'node' });
    return context.exitCode ?? 0;
  } catch (error) {
    return reportError(context, error);
  }
}

function reportError(context: CommandContext, error: unknown): number {
  const { output } = context;
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return 0;
    }
    // commander already printed the message and the usage hint.
    return 2;
  }
  if (ReportedError.isInstance(error)) {
    // Its message went out when it happened; only the details --debug asks for are left.
    const cause: unknown = error.cause;
    if (output.debug && cause instanceof Error && cause.stack !== undefined) eprintln(output, cause.stack);
    return error.exitCode;
  }
  if (CliError.isInstance(error)) {
    // Messages quote servers, models and files (an MCP server's stderr, an upstream's error body).
    eprintln(output, `${style(output, 'red', 'error:')} ${visible(error.message, { multiline: true })}`);
    if (error.hint !== undefined) eprintln(output, `${style(output, 'dim', 'hint:')} ${visible(error.hint, { multiline: true })}`);
    if (output.debug && error.stack !== undefined) eprintln(output, error.stack);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  eprintln(output, `${style(output, 'red', 'error:')} ${visible(message, { multiline: true })}`);
  if (output.debug && error instanceof Error && error.stack !== undefined) eprintln(output, error.stack);
  else eprintln(output, `${style(output, 'dim', 'hint:')} run again with --debug for details`);
  return 1;
}
