import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';

/** A `redis-server` child on 127.0.0.1 that a test can stop and start again on the same port. */
export interface RedisProcess {
  url: string;
  port: number;
  /** Stops it (SIGTERM, then SIGKILL after 5 s); its data is gone (no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and commands wait, as with a stalled server. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
}

/** Where `redis-server` is looked for: `REDIS_SERVER` or the PATH (Debian's package puts it in /usr/bin). */
const BINARY = process.env.REDIS_SERVER ?? 'redis-server';

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

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Every redis-server started here and still running. A file's server is stopped in an
 * `afterAll` that vitest does not run when no test of its block runs (`-t`, `.only`), nor
 * when the run is cut short; and vitest ends its worker processes with SIGTERM, which ends
 * a process without its `exit` event. So these are killed when the worker exits or gets
 * SIGTERM, instead of outliving the run (`pgrep redis-server` after a run finds none).
 */
const running = new Set<ChildProcess>();
const killRunning = (): void => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
};
process.once('exit', killRunning);
const onTerm = (): void => {
  killRunning();
  // Then ended as SIGTERM ends it, unless someone else handles the signal.
  if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
};
process.once('SIGTERM', onTerm);

async function spawnRedis(port: number, extraArgs: readonly string[]): Promise<ChildProcess> {
  const child = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${String(code)}: ${stderr.trim()}`)));
  });
  // Generous: the machine running the tests may be loaded.
  const deadline = Date.now() + 15_000;
  const ready = (async () => {
    while (Date.now() < deadline) {
      if (await accepts(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not accept connections on port ${port} within 15 s.`);
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  failed.catch(() => undefined);
  return child;
}

/**
 * Starts a real `redis-server` on a free loopback port (`args`: more of its options, such as
 * `['--requirepass', 'secret']`). Resolves with `{ skip }` and a reason when it cannot start
 * here (not installed), so a test can say why it did not run.
 */
export async function startRedis(args: readonly string[] = []): Promise<RedisProcess | { skip: string }> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  try {
    child = await spawnRedis(port, args);
  } catch (error) {
    return { skip: `redis-server could not start (${error instanceof Error ? error.message : String(error)}); install Debian's redis-server package to run these tests.` };
  }
  const redis: RedisProcess = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const current = child;
      child = undefined;
      // A child killed by a signal (the OOM killer, a test's SIGKILL) has no exit code, only a signal code.
      if (current === undefined || current.exitCode !== null || current.signalCode !== null) return;
      const exited = once(current, 'exit');
      current.kill('SIGTERM');
      const timer = setTimeout(() => current.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
    async start() {
      if (child !== undefined) return;
      child = await spawnRedis(port, args);
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
  return redis;
}
