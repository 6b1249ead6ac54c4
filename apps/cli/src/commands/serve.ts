import { createServer, loadServerConfig } from '@toolwire/server';
import type { CommandContext } from '../context.ts';
import { eprintln, style } from '../output.ts';
import type { ServeOptions } from '../program.ts';

/** `toolwire serve`: the OpenAI-compatible gateway, until SIGINT/SIGTERM (open streams drain first). */
export async function serveCommand(context: CommandContext, options: ServeOptions): Promise<void> {
  const config = await loadServerConfig({
    env: context.env,
    cwd: context.cwd,
    ...(options.config !== undefined ? { configPath: options.config } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
  });
  const server = createServer(config);
  const url = await server.listen({ port: config.port ?? 8787, host: config.host ?? '127.0.0.1' });
  eprintln(context.output, `${style(context.output, 'green', 'toolwire gateway')} listening on ${url}/v1 (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      eprintln(context.output, 'shutting down: draining open streams…');
      void server.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
