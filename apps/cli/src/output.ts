import type { Writable } from 'node:stream';

/** Where and how the CLI writes: colour only on a TTY and never with NO_COLOR. */
export interface Output {
  out: Writable;
  err: Writable;
  color: boolean;
  /** Whether stderr is an interactive terminal (spinners and progress go there). */
  interactive: boolean;
  /** Print stack traces (`--debug`). */
  debug: boolean;
}

type Stream = Writable & { isTTY?: boolean };

/** Builds the output settings from the process streams and environment. */
export function createOutput(options: {
  out: Stream;
  err: Stream;
  env: NodeJS.ProcessEnv;
  debug?: boolean;
}): Output {
  const noColor = options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== '';
  const forceColor = options.env.FORCE_COLOR !== undefined && options.env.FORCE_COLOR !== '0';
  const tty = options.out.isTTY === true;
  return {
    out: options.out,
    err: options.err,
    color: !noColor && (tty || forceColor) && options.env.TERM !== 'dumb',
    interactive: options.err.isTTY === true,
    debug: options.debug ?? false,
  };
}

const CODES = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], magenta: [35, 39] } as const;

/** A colour or style name. */
export type Style = keyof typeof CODES;

/** Wraps text in an ANSI style when colour is on. */
export function style(output: Output, name: Style, text: string): string {
  if (!output.color) return text;
  const [open, close] = CODES[name];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** Writes a line to stdout. */
export function println(output: Output, line = ''): void {
  output.out.write(`${line}\n`);
}

/**
 * Writes a line to stdout and waits while the reader is behind: a command that prints as it
 * reads (`extract --stream`) holds no more than a pipe's worth of output in memory.
 */
export async function writeLine(output: Output, line: string): Promise<void> {
  if (output.out.write(`${line}\n`)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      output.out.off('drain', done);
      output.out.off('error', done);
      output.out.off('close', done);
      if (error) reject(error);
      else resolve();
    };
    output.out.on('drain', done);
    output.out.on('error', done);
    output.out.on('close', done);
  });
}

/** Writes a line to stderr. */
export function eprintln(output: Output, line = ''): void {
  output.err.write(`${line}\n`);
}

/**
 * A spinner on stderr while something slow runs (only on an interactive terminal), with
 * the elapsed time once it passes a second.
 */
export function startSpinner(output: Output, label: string): { stop(): void } {
  if (!output.interactive) return { stop: () => undefined };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const started = Date.now();
  let frame = 0;
  const draw = () => {
    const seconds = (Date.now() - started) / 1000;
    const elapsed = seconds >= 1 ? ` ${seconds.toFixed(0)}s` : '';
    output.err.write(`\r${style(output, 'cyan', frames[frame % frames.length] ?? '*')} ${label}${elapsed}\u001b[K`);
    frame++;
  };
  draw();
  const timer = setInterval(draw, 80);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      output.err.write('\r\u001b[K');
    },
  };
}
