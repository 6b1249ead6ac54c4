import { runServerCommand } from '@toolwire/server';
import type { CommandContext } from '../context.ts';
import { eprintln, println } from '../output.ts';
import type { ServeOptions } from '../program.ts';
import { visible } from '../terminal-text.ts';

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
    // Errors quote the config file and the environment.
    printError: (text) => eprintln(context.output, visible(text, { multiline: true })),
  });
  if (code !== 0) context.exitCode = code;
}
