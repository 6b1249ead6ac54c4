import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { PacedUpstream } from '../helpers/paced-upstream.ts';

const bin = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
const heapProbe = fileURLToPath(new URL('./heap-probe.ts', import.meta.url));

/** The gateway's own bin, running in its own process in front of a paced upstream. */
export interface GatewayProcess {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  origin: string;
  child: ChildProcess;
  /** Whether the process is still running. */
  alive(): boolean;
  /** `GET /healthz` answered 200. */
  healthy(): Promise<boolean>;
  /** The last lines it wrote (logs, and the stack of anything uncaught), for failure messages. */
  output(): string;
  /** Heap used after two full GCs, in MB (only with `heapProbe: true`). */
  heapMb(): Promise<number>;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `toolwire-server` (src/bin.ts on Node's type stripping, as the bin test does) on
 * a free loopback port with `upstream` as both its OpenAI base URL and its Ollama host,
 * and `fetch_url` enabled (an allowed domain), so every built-in tool name is live.
 */
export async function startGatewayProcess(upstream: PacedUpstream, options: { heapProbe?: boolean; args?: string[] } = {}): Promise<GatewayProcess> {
  const nodeArgs = ['--conditions=@toolwire/source', ...(options.heapProbe === true ? ['--expose-gc', '--import', heapProbe] : [])];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      bin,
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--openai-base-url',
      `${upstream.url}/v1`,
      '--ollama-host',
      upstream.url,
      '--allowed-domain',
      'example.com',
      '--log-level',
      'info',
      ...(options.args ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe', ...(options.heapProbe === true ? (['ipc'] as const) : [])],
      // Only what the gateway needs: no proxies, no real keys.
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-paced-upstream', NODE_OPTIONS: '' },
    },
  );
  const tail: string[] = [];
  const remember = (line: string): void => {
    // Request logs (info) would drown what matters: warnings, errors, crash stacks.
    if (line.startsWith('{"level":30,')) return;
    tail.push(line);
    if (tail.length > 60) tail.shift();
  };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => remember(text));
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseURL = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway did not start within 20 s:\n${tail.join('\n')}`));
    }, 20_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${String(code)} before listening:\n${tail.join('\n')}`));
    });
    // Keep reading after the start line: a full pipe would stall the gateway.
    lines.on('line', (line) => {
      remember(line);
      let msg: string;
      try {
        msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
      } catch {
        return;
      }
      if (msg.startsWith('Toolwire gateway at ')) {
        clearTimeout(timer);
        resolve(msg.slice('Toolwire gateway at '.length));
      }
    });
  });
  const origin = baseURL.slice(0, -'/v1'.length);
  return {
    baseURL,
    origin,
    child,
    alive: () => child.exitCode === null && child.signalCode === null,
    healthy: async () => {
      try {
        const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(5000) });
        return res.status === 200;
      } catch {
        return false;
      }
    },
    output: () => tail.join('\n'),
    heapMb: async () => {
      if (options.heapProbe !== true) throw new Error('start the gateway with heapProbe: true to measure its heap');
      if (!child.connected) throw new Error(`the gateway process is gone, its heap cannot be measured:\n${tail.join('\n')}`);
      const reply = once(child, 'message', { signal: AbortSignal.timeout(10_000) });
      child.send('heap');
      const [message] = (await reply) as [{ heapUsed: number }];
      return message.heapUsed / 1024 / 1024;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      if (child.connected) child.disconnect();
      child.kill('SIGTERM');
      return exited;
    },
  };
}
