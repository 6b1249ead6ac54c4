import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.ts';
import type { FakeOpenAI } from './fake-openai.ts';
import { BIN } from './run-cli.ts';

// The interactive session runs in a real pseudo-terminal (tmux): we type and read the screen.
const session = `toolwire-test-${process.pid}`;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

function screen(): string {
  return tmux('capture-pane', '-p', '-t', session, '-S', '-200');
}

async function waitFor(text: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = screen();
    if (shown.includes(text)) return shown;
    if (Date.now() > deadline) throw new Error(`"${text}" did not appear on screen:\n${shown}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('toolwire chat, interactive', () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI([{ text: 'too slow', delayMs: 20_000 }, { text: 'second answer' }]);
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const command = [
      'env',
      'NO_COLOR=1',
      `OPENAI_BASE_URL=${fake.baseURL}`,
      'OPENAI_API_KEY=test',
      quote(process.execPath),
      quote(BIN),
      'chat',
      '--model',
      'openai/fake-model',
    ].join(' ');
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', command);
  });

  afterAll(async () => {
    try {
      tmux('kill-session', '-t', session);
    } catch {
      // already ended
    }
    await fake.close();
  });

  it('cancels a turn with Ctrl-C, keeps the session, and answers the next prompt', async () => {
    await waitFor('/exit quits');
    tmux('send-keys', '-t', session, 'first question', 'Enter');
    await new Promise((r) => setTimeout(r, 800));
    tmux('send-keys', '-t', session, 'C-c');
    await waitFor('(turn cancelled)');

    tmux('send-keys', '-t', session, '/tools', 'Enter');
    await waitFor('no tools');

    tmux('send-keys', '-t', session, 'second question', 'Enter');
    const shown = await waitFor('second answer');
    expect(shown).not.toContain('too slow');

    tmux('send-keys', '-t', session, '/exit', 'Enter');
    const deadline = Date.now() + 10_000;
    let alive = true;
    while (alive && Date.now() < deadline) {
      try {
        tmux('has-session', '-t', session);
        await new Promise((r) => setTimeout(r, 100));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  }, 60_000);
});
