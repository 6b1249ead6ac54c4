// The Portkey AI gateway (`@portkey-ai/gateway`, its Node entry point) on a free loopback
// port, as a peer for the gateway bench. Requests reach our local upstream through its
// custom-host route: `x-portkey-provider: openai`, `x-portkey-custom-host: <upstream>/v1`.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { pinnedCommand } from './cpu-pinning.ts';

/** A running Portkey gateway. */
export interface PortkeyProcess {
  /** Its OpenAI-compatible base, e.g. `http://127.0.0.1:1234/v1`. */
  url: string;
  /** The headers that route a request to `upstream`. */
  headers(upstream: string): Record<string, string>;
  version: string;
  /** Its process id (for CPU accounting). */
  pid: number | undefined;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Options of `startPortkey`. */
export interface StartPortkeyOptions {
  /** CPUs to run it on (a taskset list, e.g. "1"); ignored where taskset is missing. */
  cpus?: string;
}

/** Starts Portkey; resolves once it answers HTTP. */
export async function startPortkey(options: StartPortkeyOptions = {}): Promise<PortkeyProcess> {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@portkey-ai/gateway/package.json');
  const { version } = require('@portkey-ai/gateway/package.json') as { version: string };
  const entry = join(dirname(manifestPath), 'build', 'start-server.js');
  const port = await freePort();
  const [command, args] = pinnedCommand(options.cpus, process.execPath, ['--import', new URL('./loopback-only.ts', import.meta.url).pathname, entry, `--port=${port}`, '--headless']);
  const child: ChildProcess = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}/v1`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Portkey exited: ${stderr}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`Portkey did not answer on ${url} within 30 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    version,
    pid: child.pid,
    headers: (upstream) => ({ authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream}/v1` }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
