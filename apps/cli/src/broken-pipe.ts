/** The exit code of a process that a closed pipe ended (128 + SIGPIPE), as `cat` or `grep` report it. */
export const BROKEN_PIPE_EXIT_CODE = 141;

/**
 * When the reader of stdout or stderr goes away (`toolwire extract … | head -1`), the next
 * write fails with EPIPE. Node ignores SIGPIPE and raises that as an unhandled `error` event
 * with a stack trace; a command line tool just stops, quietly.
 */
export function exitQuietlyOnBrokenPipe(streams: readonly NodeJS.WritableStream[], exit: (code: number) => void): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') exit(BROKEN_PIPE_EXIT_CODE);
      else throw error;
    });
  }
}
