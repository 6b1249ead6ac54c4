import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.ts';
import type { FakeOpenAI } from './fake-openai.ts';
import { BIN } from './run-cli.ts';

// The interactive session runs in a real pseudo-terminal (tmux): we type and read the screen.
const session = `toolwire-test-${process.pid}`;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

function screen(name = session): string {
  return tmux('capture-pane', '-p', '-t', name, '-S', '-200');
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function waitFor(text: string, timeoutMs = 15_000, name = session): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = screen(name);
    if (shown.includes(text)) return shown;
    if (Date.now() > deadline) throw new Error(`"${text}" did not appear on screen:\n${shown}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('toolwire chat, interactive', () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI([{ text: 'too slow', delayMs: 20_000 }, { text: 'second answer' }]);
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

describe('toolwire chat, interactive, Ctrl-C at a [y/N] prompt', () => {
  const name = `${session}-approve`;
  let fake: FakeOpenAI;
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-approve-'));

  beforeAll(async () => {
    fake = await startFakeOpenAI([{ toolCall: { name: 'shell', arguments: '{"command":["touch","made-by-model"]}' } }, { text: 'answer after cancel' }]);
    const command = ['cd', quote(dir), '&&', 'exec', 'env', 'NO_COLOR=1', `OPENAI_BASE_URL=${fake.baseURL}`, 'OPENAI_API_KEY=test', quote(process.execPath), quote(BIN), 'chat', '--model', 'openai/fake-model', '--tools', 'shell'].join(' ');
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', command);
  });

  afterAll(async () => {
    try {
      tmux('kill-session', '-t', name);
    } catch {
      // already ended
    }
    await fake.close();
  });

  it('takes the question away with the turn: the next line is a new prompt, and the command never runs', async () => {
    await waitFor('/exit quits', 15_000, name);
    tmux('send-keys', '-t', name, 'make a file', 'Enter');
    await waitFor('[y/N]', 15_000, name);
    tmux('send-keys', '-t', name, 'C-c');
    await waitFor('(turn cancelled)', 15_000, name);
    // Before the fix this "y" answered the cancelled turn's question and the session hung.
    tmux('send-keys', '-t', name, 'y', 'Enter');
    const shown = await waitFor('answer after cancel', 15_000, name);
    expect(shown).toContain('> y');
    expect(existsSync(join(dir, 'made-by-model'))).toBe(false);
    expect(fake.requests).toHaveLength(2);
  }, 60_000);
});

describe('toolwire chat "prompt", Ctrl-C at a [y/N] prompt', () => {
  const name = `${session}-oneshot`;
  let fake: FakeOpenAI;
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-approve-'));

  beforeAll(async () => {
    fake = await startFakeOpenAI([{ toolCall: { name: 'shell', arguments: '{"command":["touch","made-by-model"]}' } }, { text: 'model asked again' }]);
    const cli = ['env', 'NO_COLOR=1', `OPENAI_BASE_URL=${fake.baseURL}`, 'OPENAI_API_KEY=test', quote(process.execPath), quote(BIN), 'chat', quote('make a file'), '--model', 'openai/fake-model', '--tools', 'shell'].join(' ');
    // The shell stays to show the exit code.
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', `cd ${quote(dir)} && ${cli}; echo EXIT=$?; sleep 60`);
  });

  afterAll(async () => {
    try {
      tmux('kill-session', '-t', name);
    } catch {
      // already ended
    }
    await fake.close();
  });

  it('ends the command with 130, without running the command or asking the model again', async () => {
    await waitFor('[y/N]', 15_000, name);
    tmux('send-keys', '-t', name, 'C-c');
    const shown = await waitFor('EXIT=', 15_000, name);
    expect(shown).toContain('(cancelled)');
    expect(shown).toContain('EXIT=130');
    expect(shown).not.toContain('model asked again');
    expect(existsSync(join(dir, 'made-by-model'))).toBe(false);
    expect(fake.requests).toHaveLength(1);
  }, 60_000);
});

describe('toolwire chat, interactive, with stderr redirected to a file', () => {
  const name = `${session}-stderr`;
  let fake: FakeOpenAI;
  const log = join(mkdtempSync(join(tmpdir(), 'toolwire-stderr-')), 'err.log');

  beforeAll(async () => {
    fake = await startFakeOpenAI([{ text: 'too slow', delayMs: 20_000 }]);
    const cli = ['env', 'NO_COLOR=1', `OPENAI_BASE_URL=${fake.baseURL}`, 'OPENAI_API_KEY=test', quote(process.execPath), quote(BIN), 'chat', '--model', 'openai/fake-model'].join(' ');
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', `${cli} 2>${quote(log)}; echo EXIT=$?; sleep 60`);
  });

  afterAll(async () => {
    try {
      tmux('kill-session', '-t', name);
    } catch {
      // already ended
    }
    await fake.close();
  });

  it('writes no escape sequences into the file, and Ctrl-C still cancels a turn', async () => {
    const logged = async (text: string) => {
      const deadline = Date.now() + 15_000;
      while (!(existsSync(log) && readFileSync(log, 'utf8').includes(text))) {
        if (Date.now() > deadline) throw new Error(`"${text}" not in the log:\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await logged('/exit quits');
    tmux('send-keys', '-t', name, 'first question', 'Enter');
    // What the user types is echoed by the terminal itself.
    await waitFor('first question', 15_000, name);
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    tmux('send-keys', '-t', name, 'C-c');
    await logged('(turn cancelled)');
    tmux('send-keys', '-t', name, '/exit', 'Enter');
    expect(await waitFor('EXIT=', 15_000, name)).toContain('EXIT=0');
    expect(readFileSync(log, 'utf8')).not.toContain('\u001b');
  }, 60_000);
});
