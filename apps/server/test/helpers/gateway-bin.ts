import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));

/** One line of the gateway's JSON log. */
export interface LogEntry {
  level: number;
  msg?: string;
  err?: { message?: string };
}

/** The real `toolwire-server` bin running as its own process on 127.0.0.1. */
export interface GatewayBin {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  origin: string;
  /** Every log line so far. */
  logs: LogEntry[];
  /** Resident memory of the gateway process in bytes (Linux `/proc`). */
  rss(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the bin with a config file (written to a temporary directory) and extra environment.
 * A crash of the gateway is visible as the child's exit, not hidden in the test process.
 */
export async function startGatewayBin(options: { config: Record<string, unknown>; env?: Record<string, string> }): Promise<GatewayBin> {
  const dir = await mkdtemp(join(tmpdir(), 'toolwire-bin-'));
  const configPath = join(dir, 'gateway.json');
  await writeFile(configPath, JSON.stringify(options.config));
  const child = spawn(process.execPath, ['--conditions=@toolwire/source', bin, '--config', configPath, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HOST: '127.0.0.1', ...options.env },
  });
  const logs: LogEntry[] = [];
  const lines = createInterface({ input: child.stdout });
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${String(code)}`)));
    lines.on('line', (line) => {
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg?.startsWith('Toolwire gateway at ') === true) resolve(entry.msg.slice('Toolwire gateway at '.length));
    });
  });
  return {
    child,
    baseURL,
    origin: baseURL.slice(0, -'/v1'.length),
    logs,
    async rss() {
      const status = await readFile(`/proc/${String(child.pid)}/status`, 'utf8');
      const line = status.split('\n').find((l) => l.startsWith('VmRSS:')) ?? '';
      return Number.parseInt(line.slice('VmRSS:'.length), 10) * 1024;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
