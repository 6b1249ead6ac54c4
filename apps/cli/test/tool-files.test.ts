// Paths given with `--tools` that are not regular files: a FIFO would block the read
// forever (and a thread of libuv's pool with it), a directory is no document. Runs `main()`
// in this process.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';

async function run(argv: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const err = new PassThrough();
  let stderr = '';
  err.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const stdin = new PassThrough();
  stdin.end();
  const code = await main(['node', 'toolwire', ...argv], { out: new PassThrough(), err, stdin, env: { NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9' }, cwd });
  return { code, stderr };
}

describe('toolwire chat --tools with a path that is not a regular file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-tool-files-'));
  execFileSync('mkfifo', [join(dir, 'api.json'), join(dir, 'tool.js')]);
  mkdirSync(join(dir, 'folder.js'));

  it.each([['openapi:api.json'], ['./tool.js'], ['./folder.js'], ['openapi:.']])('refuses %s at once with exit 1', async (tools) => {
    const result = await run(['chat', 'hi', '--model', 'ollama/x', '--tools', tools], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Not a file:');
  }, 15_000);
});
