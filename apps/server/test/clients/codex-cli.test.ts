import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_PATHS, useClientSuite } from './client-suite.ts';

/**
 * Codex CLI (`@openai/codex`, the real binary from npm) end to end: Codex speaks only the
 * Responses API, the gateway routes it to the paced upstream on each model path. On the
 * Ollama model without native tools, Codex's `exec_command` reaches the model in the
 * text-tools prompt and the model's `exec_command(cmd="…")` line comes back to Codex as a
 * `function_call`. Codex runs the command in its own sandbox and sends the output back; the
 * model then answers.
 */

const codexBin = fileURLToPath(new URL('../../node_modules/.bin/codex', import.meta.url));
// Codex refuses to set up its sandbox helper when CODEX_HOME is under the system temp dir:
// the package's cache, unless the checkout itself is there (a clone in /tmp), then the user's.
const packageCache = fileURLToPath(new URL('../../node_modules/.cache/codex-e2e/', import.meta.url));
const codexHomes = isUnder(packageCache, realpathSync(tmpdir())) ? join(homedir(), '.cache', 'toolwire-codex-e2e') + sep : packageCache;

function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
const suite = useClientSuite();

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

let home: string;

beforeAll(() => {
  mkdirSync(codexHomes, { recursive: true });
  home = mkdtempSync(codexHomes);
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** A Codex config with one model provider: the gateway, on loopback. */
function writeConfig(model: string): void {
  writeFileSync(
    join(home, 'config.toml'),
    [
      `model = "${model}"`,
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
      `base_url = "${suite.gateway.baseURL}"`,
      'wire_api = "responses"',
      'env_key = "TOOLWIRE_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
}

describe.each(MODEL_PATHS)('Codex CLI through the gateway on $model', ({ kind, model }) => {
  it('runs the shell call the model wrote, sends its output back, and prints the final answer', async () => {
    writeConfig(model);
    const work = mkdtempSync(join(tmpdir(), 'codex-work-'));
    // The stand-in model: Codex's first turn gets a shell call; once the command's result is back, an answer quoting it.
    suite.upstream.script = (request) => {
      const result = request.toolResults.at(-1);
      if (result === undefined) return { text: 'I will create the file.\n', toolCalls: [{ name: 'exec_command', arguments: { cmd: 'printf hi > hello.txt && cat hello.txt' } }] };
      return { text: `Created hello.txt; the command printed: ${result.slice(result.indexOf('Output:') + 'Output:'.length).trim()}` };
    };
    try {
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
      // Two model turns; on the text-only model the tools were in its prompt, not native.
      const chats = suite.chatRequests();
      expect(chats).toHaveLength(2);
      if (kind === 'ollama-text') {
        expect(chats[0]?.toolNames).toEqual([]);
        expect(chats[0]?.system).toContain('exec_command(');
      } else {
        expect(chats[0]?.toolNames).toContain('exec_command');
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);
});
