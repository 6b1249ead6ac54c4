import { hashApiKey } from './auth/hash-key.ts';
import { ConfigError } from './config/config-error.ts';
import { loadServerConfig, SERVER_USAGE } from './config/load-server-config.ts';
import { startOtelFromEnv } from './observability/start-otel.ts';
import { createServer } from './server.ts';

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
      const otel = startOtelFromEnv(options.env);
      const server = createServer(command.config);
      if (otel !== undefined) server.logger.info('OpenTelemetry: sending traces over OTLP (OTEL_* environment)');
      try {
        await server.listen();
      } catch (error) {
        printError(`toolwire-server: ${(error as Error).message}`);
        await otel?.shutdown();
        return 1;
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          server.logger.info({ signal }, 'shutting down: draining open streams');
          server
            .close()
            .catch((error: unknown) => server.logger.error({ err: error }, 'shutdown failed'))
            // Spans still buffered are sent before the process ends.
            .then(() => otel?.shutdown())
            .catch((error: unknown) => server.logger.error({ err: error }, 'flushing traces failed'))
            .finally(resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      return 0;
    }
    default: {
      const unexpected: never = command;
      throw new Error(`Unknown command ${JSON.stringify(unexpected)}`);
    }
  }
}
