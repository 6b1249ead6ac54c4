import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllama } from './helpers/fake-upstreams.ts';
import type { FakeUpstream } from './helpers/fake-upstreams.ts';

/**
 * Codex CLI (`@openai/codex`, the real binary from npm) end to end: Codex speaks only the
 * Responses API, the gateway routes it to a local Ollama stand-in whose model has no native
 * tools, so Codex's `exec_command` reaches the model in the text-tools prompt and the
 * model's `exec_command(cmd="…")` line comes back to Codex as a `function_call`. Codex runs
 * the command in its own sandbox and sends the output back; the model then answers.
 */

const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
const codexBin = fileURLToPath(new URL('../node_modules/.bin/codex', import.meta.url));
// Codex refuses to set up its sandbox helper when CODEX_HOME is under the system temp dir.
const codexHomes = fileURLToPath(new URL('../node_modules/.cache/codex-e2e/', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let upstream: FakeUpstream;
let gateway: ReturnType<typeof spawn>;
let baseURL: string;
let home: string;
let work: string;

beforeAll(async () => {
  // The stand-in model: Codex's first turn gets a shell call; once the command's result is back, an answer quoting it.
  upstream = await startFakeOllama((body) => {
    const messages = body.messages as { role: string; content: string }[];
    const last = messages.at(-1);
    if (last?.role === 'user' && last.content.startsWith('Result of exec_command')) {
      const output = last.content.slice(last.content.indexOf('Output:') + 'Output:'.length).trim();
      return { text: `Created hello.txt; the command printed: ${output}` };
    }
    return { text: 'I will create the file.\nexec_command(cmd="printf hi > hello.txt && cat hello.txt")' };
  });
  gateway = spawn(process.execPath, ['--conditions=@toolwire/source', bin, '--port', '0', '--host', '127.0.0.1', '--ollama-host', upstream.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH, NODE_OPTIONS: '' },
  });
  for await (const line of createInterface({ input: gateway.stdout! })) {
    const msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
    if (msg.startsWith('Toolwire gateway at ')) {
      baseURL = msg.slice('Toolwire gateway at '.length);
      break;
    }
  }
  mkdirSync(codexHomes, { recursive: true });
  home = mkdtempSync(codexHomes);
  work = mkdtempSync(join(tmpdir(), 'codex-work-'));
  writeFileSync(
    join(home, 'config.toml'),
    [
      'model = "ollama/text"',
      'model_provider = "toolwire"',
      // Codex offers its hosted web search by default; the gateway cannot serve it (a 400 says so).
      'web_search = "disabled"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[model_providers.toolwire]',
      'name = "Toolwire"',
      `base_url = "${baseURL}"`,
      'wire_api = "responses"',
      'env_key = "TOOLWIRE_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
}, 30_000);

afterAll(async () => {
  gateway.kill('SIGTERM');
  await upstream.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('Codex CLI through the gateway on a text-only Ollama model', () => {
  it('runs the shell call the model wrote, sends its output back, and prints the final answer', async () => {
    const result = await run(codexBin, ['exec', '--skip-git-repo-check', '--sandbox', 'workspace-write', 'Create hello.txt containing hi'], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, TOOLWIRE_API_KEY: 'unused' },
      timeoutMs: 90_000,
    });
    const context = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr.slice(-3000)}`;
    expect(result.code, context).toBe(0);
    // The command's effect on the work directory.
    expect(existsSync(join(work, 'hello.txt')), context).toBe(true);
    expect(readFileSync(join(work, 'hello.txt'), 'utf8')).toBe('hi');
    // Codex prints the last answer on stdout; it quotes the command's output, so the result went back through the gateway.
    expect(result.stdout.trim()).toBe('Created hello.txt; the command printed: hi');
    // Two model turns, both through the gateway's text-tools path.
    const chats = upstream.requests.filter((body) => Array.isArray(body.messages));
    expect(chats).toHaveLength(2);
    const firstSystem = (chats[0]?.messages as { content: string }[])[0]?.content ?? '';
    expect(firstSystem).toContain('exec_command(');
    expect(chats[0]?.tools).toBeUndefined();
  }, 120_000);
});
