// Everything a model or a server writes is shown on a terminal as text: escape sequences,
// C1 controls, carriage returns and bidi overrides come out visible, never obeyed; `--json`
// keeps the model's bytes as they were. Runs `main()` in this process against a local
// OpenAI-compatible server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';
import { startFakeOpenAI } from './fake-openai.ts';
import type { FakeOpenAI } from './fake-openai.ts';
import { runMain } from './run-cli.ts';

const HOSTILE = '\u001b[2J\u001b[H\u001b]0;pwned\u0007\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\\u001b]52;c;cm0gLXJmIH4=\u0007\u001bP+q\u001b\\\u001b[201~\u009b31m\u202Eright\rback\b\b';
/** What a terminal would act on: ESC, a one-byte CSI, a bidi override, a bare CR, a backspace. */
// eslint-disable-next-line no-control-regex -- the control characters are what this looks for
const OBEYED = /[\u001b\u009b\u202e\b]|\r(?!\n)/u;

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

// A terminal on stdout, as a user at a prompt has.
const run = (argv: string[], env: Record<string, string>, cwd?: string) => runMain(argv, { env, outIsTTY: true, ...(cwd === undefined ? {} : { cwd }) });

describe('toolwire chat shows what a model writes, and never lets it drive the terminal', () => {
  it('prints model text with escape sequences made visible', async () => {
    fake = await startFakeOpenAI([{ text: `Hello ${HOSTILE} done` }]);
    const result = await run(['chat', 'hi', '--model', 'openai/fake-model'], { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test' });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(OBEYED);
    expect(result.stdout).toContain('Hello \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07');
    expect(result.stdout).toContain('\\u009b31m\\u202eright\\rback\\x08\\x08 done');
  });

  it('keeps the model bytes untouched in --json', async () => {
    fake = await startFakeOpenAI([{ text: HOSTILE }]);
    const result = await run(['chat', 'hi', '--model', 'openai/fake-model', '--json'], { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test' });
    expect(result.code).toBe(0);
    const text = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; delta?: string })
      .filter((event) => event.type === 'text-delta')
      .map((event) => event.delta)
      .join('');
    expect(text).toBe(HOSTILE);
  });

  it('shows a hostile tool name, its arguments and the error about it as text', async () => {
    fake = await startFakeOpenAI([
      { toolCall: { name: 'calc\u001b[1A\u001b[2K\u001b]0;x\u0007', arguments: JSON.stringify({ q: `a${HOSTILE}` }) } },
      { text: 'ok' },
    ]);
    const result = await run(['chat', 'hi', '--model', 'openai/fake-model', '--tools', 'builtin'], { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test' });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(OBEYED);
    expect(result.stderr).toContain('→ calc\\x1b[1A\\x1b[2K\\x1b]0;x\\x07(');
    expect(result.stderr).toContain('\\u009b31m');
  });

  it('shows the real command in the approval message, with bidi and zero-width characters visible', async () => {
    const argv = ['sh', '-c', 'echo safe\u202E\u200Bfdp.sh\r\u001b[2Krm -rf ~'];
    fake = await startFakeOpenAI([{ toolCall: { name: 'shell', arguments: JSON.stringify({ command: argv }) } }, { text: 'ok' }]);
    const cwd = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
    const result = await run(['chat', 'hi', '--model', 'openai/fake-model', '--tools', 'shell'], { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test' }, cwd);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(OBEYED);
    expect(result.stderr).toContain('refused to run `sh -c "echo safe\\u202e\\u200bfdp.sh\\r\\x1b[2Krm -rf ~"`');
  });

  it('shows an upstream error body as text', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `bad\u001b]0;owned\u0007\u001b[2J request`, type: 'invalid_request_error' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const result = await run(['chat', 'hi', '--model', 'openai/fake-model'], { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'sk-test' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('bad\\x1b]0;owned\\x07\\x1b[2J request');
      expect(result.stderr).not.toMatch(OBEYED);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('toolwire extract --format table', () => {
  it('shows control characters in arguments as escapes', async () => {
    const stdin = new PassThrough();
    stdin.end('f(a="x\u009b2J\u202Ey")');
    const out = Object.assign(new PassThrough(), { isTTY: true });
    let stdout = '';
    out.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const code = await main(['node', 'toolwire', 'extract', '-', '--format', 'table'], { out, err: new PassThrough(), stdin, env: { NO_COLOR: '1' }, cwd: process.cwd() });
    expect(code).toBe(0);
    expect(stdout).toContain('{"a":"x\\u009b2J\\u202ey"}');
    expect(stdout).not.toMatch(OBEYED);
  });
});
