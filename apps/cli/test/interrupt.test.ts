// `toolwire chat "prompt"` interrupted while the model is still streaming: the turn is
// cancelled, the tools are stopped, and the command ends with 130 and no stack trace.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.ts';
import type { FakeOpenAI } from './fake-openai.ts';
import { BIN } from './run-cli.ts';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('toolwire chat "prompt" and SIGINT', () => {
  it('cancels the turn and exits 130', async () => {
    fake = await startFakeOpenAI([{ text: 'never sent', delayMs: 600_000 }]);
    const child = spawn(process.execPath, [BIN, 'chat', 'hi', '--model', 'openai/fake-model', '--tools', 'builtin'], {
      env: { ...process.env, NO_COLOR: '1', OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test', HOME: '/nonexistent-toolwire-home' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end();
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    // Interrupt once the model has been asked (its answer never comes).
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const [code, signal] = await closed;
    clearTimeout(timer);
    expect(signal).toBeNull();
    expect(code).toBe(130);
    expect(stderr).toContain('(cancelled)');
    expect(stderr).not.toContain('    at ');
  }, 40_000);
});
