import { runServerCommand } from '@toolwire/server';
import type { CommandContext } from '../context.ts';
import { eprintln, println } from '../output.ts';
import type { ServeOptions } from '../program.ts';

/**
 * `toolwire serve`: the gateway's own command (`toolwire-server`), so flags, the config
 * file, the environment and graceful shutdown behave exactly the same.
 */
export async function serveCommand(context: CommandContext, options: ServeOptions): Promise<void> {
  const argv = [
    ...(options.port !== undefined ? ['--port', String(options.port)] : []),
    ...(options.host !== undefined ? ['--host', options.host] : []),
    ...(options.config !== undefined ? ['--config', options.config] : []),
  ];
  const code = await runServerCommand({
    argv,
    env: context.env,
    print: (text) => println(context.output, text),
    printError: (text) => eprintln(context.output, text),
  });
  if (code !== 0) context.exitCode = code;
}
