// Garbage in the provider variables: one line that names the variable, never its value
// (a URL can hold credentials), instead of a bare "Invalid URL". Runs `main()` in this process.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';

async function run(argv: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const err = new PassThrough();
  let stderr = '';
  err.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const stdin = new PassThrough();
  stdin.end();
  const code = await main(['node', 'toolwire', ...argv], { out: new PassThrough(), err, stdin, env: { NO_COLOR: '1', ...env }, cwd: process.cwd() });
  return { code, stderr };
}

describe('toolwire chat with garbage in the provider variables', () => {
  it('names OLLAMA_HOST, not its value', async () => {
    const result = await run(['chat', 'hi', '--model', 'ollama/x'], { OLLAMA_HOST: 'http://user:s3cret@[bad' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('OLLAMA_HOST is not a usable address');
    expect(result.stderr).not.toContain('s3cret');
  });

  it('names OPENAI_BASE_URL, not its value', async () => {
    const result = await run(['chat', 'hi', '--model', 'openai/x'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'user:s3cret@::::' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('OPENAI_BASE_URL is not an absolute http:// or https:// URL');
    expect(result.stderr).not.toContain('s3cret');
  });
});
