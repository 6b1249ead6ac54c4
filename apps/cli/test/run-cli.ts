import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../src/main.ts';

/** The built CLI entry (tests run what users run). */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.js');

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with arguments, optional stdin and extra environment. */
export function runCli(args: string[], options: { input?: string; env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
    // Point every provider somewhere harmless unless the test says otherwise.
    env.OLLAMA_HOST = 'http://127.0.0.1:9';
    env.HOME = process.env.TOOLWIRE_TEST_HOME ?? '/nonexistent-toolwire-home';
    env.CODEX_HOME = '/nonexistent-codex-home';
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) Reflect.deleteProperty(env, key);
      else env[key] = value;
    }
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: options.cwd ?? process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Runs the CLI's `main()` in this process (quick; no build needed for the code under test):
 * what it printed and its exit code. Providers point somewhere harmless unless `env` says
 * otherwise; `stdin` defaults to an empty one; `outIsTTY` makes stdout look like a terminal.
 */
export async function runMain(
  argv: string[],
  options: { env?: Record<string, string>; stdin?: Readable; cwd?: string; outIsTTY?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = Object.assign(new PassThrough(), { isTTY: options.outIsTTY === true });
  const err = Object.assign(new PassThrough(), { isTTY: false });
  let stdout = '';
  let stderr = '';
  out.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  err.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const stdin = options.stdin ?? new PassThrough().end();
  const env = { NO_COLOR: '1', HOME: '/nonexistent-toolwire-home', OLLAMA_HOST: 'http://127.0.0.1:9', ...options.env };
  const code = await main(['node', 'toolwire', ...argv], { out, err, stdin, env, cwd: options.cwd ?? process.cwd() });
  return { code, stdout, stderr };
}
