import { hashApiKey } from './auth/hash-key.ts';
import { ConfigError } from './config/config-error.ts';
import { loadServerConfig, SERVER_USAGE } from './config/load-server-config.ts';
import { startOtelFromEnv } from './observability/start-otel.ts';
import { createServer, DEFAULT_SHUTDOWN_GRACE_MS } from './server.ts';
import type { ToolwireServer } from './server.ts';

/** Options of `runServerCommand`. */
export interface RunServerCommandOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Where help and hashes go (default stdout). */
  print?: (text: string) => void;
  /** Where configuration errors go (default stderr). */
  printError?: (text: string) => void;
}

/**
 * The last resort, not the mechanism: every failure a client or an upstream can cause is
 * handled on its request's own error path. Should one escape anyway, it is logged as the
 * bug it is and the gateway keeps serving its other tenants instead of dropping them all.
 */
function installSafetyNet(server: ToolwireServer): () => void {
  const onException = (error: Error): void => server.logger.fatal({ err: error }, 'uncaught exception (a gateway bug; please report it): the gateway keeps serving');
  const onRejection = (reason: unknown): void => server.logger.fatal({ err: reason }, 'uncaught promise rejection (a gateway bug; please report it): the gateway keeps serving');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

/**
 * The `toolwire-server` command (also `toolwire serve`): `--help`, `--hash-key`, or start
 * the gateway and stop it gracefully on SIGTERM/SIGINT. Resolves with the exit code once
 * the command is done (for `serve`: after shutdown).
 */
export async function runServerCommand(options: RunServerCommandOptions): Promise<number> {
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const printError = options.printError ?? ((text: string) => process.stderr.write(`${text}\n`));
  let command;
  try {
    command = await loadServerConfig({ argv: options.argv, env: options.env });
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      printError(`toolwire-server: ${error.message}`);
      return 2;
    }
    throw error;
  }
  switch (command.kind) {
    case 'help':
      print(SERVER_USAGE);
      return 0;
    case 'hash-key':
      print(hashApiKey(command.key));
      return 0;
    case 'serve': {
      let server: ToolwireServer;
      try {
        server = createServer(command.config);
      } catch (error) {
        if (!ConfigError.isInstance(error)) throw error;
        printError(`toolwire-server: ${error.message}`);
        return 2;
      }
      const otel = startOtelFromEnv(options.env, { log: server.logger });
      if (otel !== undefined) server.logger.info({ signals: otel.signals }, `OpenTelemetry: sending ${otel.signals.join(' and ')} over OTLP (OTEL_* environment)`);
      try {
        await server.listen();
      } catch (error) {
        printError(`toolwire-server: ${(error as Error).message}`);
        await otel?.shutdown();
        return 1;
      }
      const removeSafetyNet = installSafetyNet(server);
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          // The process is done by the end of the drain: telemetry gets what is left of it.
          const deadline = Date.now() + (command.config.limits?.drainDelayMs ?? 0) + (command.config.limits?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
          server.logger.info({ signal }, 'shutting down: draining open streams');
          server
            .close()
            .catch((error: unknown) => server.logger.error({ err: error }, 'shutdown failed'))
            // Spans and metrics still buffered are sent before the process ends, unless the
            // collector cannot take them before the drain deadline.
            .then(() => otel?.shutdown({ timeoutMs: deadline - Date.now() }))
            .catch((error: unknown) => server.logger.error({ err: error }, 'flushing telemetry failed'))
            .finally(resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      removeSafetyNet();
      return 0;
    }
    default: {
      const unexpected: never = command;
      throw new Error(`Unknown command ${JSON.stringify(unexpected)}`);
    }
  }
}
