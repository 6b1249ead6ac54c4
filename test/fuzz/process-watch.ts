// Listens for what must never happen while a fuzz case runs: an unhandled rejection or an
// uncaught exception anywhere in the process.

/** A listener on the process's failure events; `stop()` removes it and returns what it saw. */
export interface ProcessWatch {
  stop(): string[];
}

export function watchProcess(): ProcessWatch {
  const seen: string[] = [];
  const describe = (what: string, reason: unknown): void => {
    seen.push(`${what}: ${reason instanceof Error ? `${reason.name}: ${reason.message}\n${reason.stack ?? ''}` : String(reason)}`);
  };
  const onRejection = (reason: unknown): void => describe('unhandledRejection', reason);
  const onException = (error: unknown): void => describe('uncaughtException', error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtExceptionMonitor', onException);
  return {
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtExceptionMonitor', onException);
      return seen;
    },
  };
}

/** Lets pending rejections surface: a few turns of the event loop (unhandled rejections are reported after microtasks drain). */
export async function settleTurns(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
