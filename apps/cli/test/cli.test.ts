import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_CALL_CHARS } from '@toolwire/extract';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.ts';
import type { FakeOpenAI } from './fake-openai.ts';
import { runCli } from './run-cli.ts';

const COMMANDS = ['chat', 'extract', 'serve', 'login', 'logout', 'whoami', 'models', 'demo'];

describe('toolwire conventions', () => {
  it('prints help with every command and an example, exit 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toContain(command);
    expect(run.stdout).toContain('Examples:');
  });

  it.each(COMMANDS)('has --help with an example for %s', async (command) => {
    const run = await runCli([command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Example/);
  });

  it('prints its version', async () => {
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits 2 for an unknown command or option', async () => {
    expect((await runCli(['frobnicate'])).code).toBe(2);
    const run = await runCli(['extract', '--no-such-option']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option');
  });

  it('colours only when asked and never with NO_COLOR', async () => {
    const coloured = await runCli(['models'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(coloured.stderr).toContain('\u001b[');
    const plain = await runCli(['models'], { env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
    expect(plain.stderr).not.toContain('\u001b[');
  });
});

describe('toolwire extract', () => {
  it('prints the calls in text from stdin as JSON lines', async () => {
    const run = await runCli(['extract', '-'], { input: 'Sure. [get_weather(city="Paris"), get_time(tz="UTC")] done' });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { name: string; arguments: unknown });
    expect(lines.map((l) => l.name)).toEqual(['get_weather', 'get_time']);
    expect(lines[0]?.arguments).toEqual({ city: 'Paris' });
  });

  it('applies the allow-list', async () => {
    const run = await runCli(['extract', '-', '--tools', 'get_time'], { input: '[get_weather(city="Paris"), get_time(tz="UTC")]' });
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toContain('get_time');
  });

  it('prints a table', async () => {
    const run = await runCli(['extract', '-', '--format', 'table'], { input: 'search(query="x", limit=10)' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^id\s+name\s+arguments/);
    expect(run.stdout).toContain('{"query":"x","limit":10}');
  });

  it('streams events, flagging an unclosed call instead of guessing', async () => {
    const run = await runCli(['extract', '-', '--stream'], { input: 'ok f(a=1) then g(b="unclosed' });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toContain('tool-call');
    expect(events.at(-1)?.type).toBe('incomplete');
  });

  it('gives up a call still open after --max-call-chars characters, streamed or whole, and finds the calls after it', async () => {
    const input = `ok f(a="${'x'.repeat(40)} then g(b=1)`;
    const streamed = await runCli(['extract', '-', '--stream', '--max-call-chars', '20'], { input });
    expect(streamed.code).toBe(0);
    const events = streamed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; text?: string; reason?: string; toolCall?: { name: string } });
    expect(events.filter((e) => e.type === 'incomplete')).toEqual([{ type: 'incomplete', text: `f(a="${'x'.repeat(15)}`, id: 'f_0', reason: 'too-long' }]);
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall?.name] : []))).toEqual(['g']);
    const whole = await runCli(['extract', '-', '--max-call-chars', '20'], { input });
    expect(whole.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(['g']);
    // The default bound (4 Mi characters) leaves this call open to the end.
    const unbounded = await runCli(['extract', '-'], { input });
    expect(unbounded.stdout).toBe('');
  });

  it('refuses a --max-call-chars that is not a whole number, with exit 2', async () => {
    for (const value of ['-1', '1.5', 'many', '']) {
      const run = await runCli(['extract', '-', '--max-call-chars', value], { input: 'f(a=1)' });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('must be a whole number (0 for no bound)');
    }
  });

  it('shows --max-call-chars and its default in --help', async () => {
    const run = await runCli(['extract', '--help']);
    expect(run.stdout).toContain('--max-call-chars <n>');
    expect(run.stdout).toContain(`default ${String(DEFAULT_MAX_CALL_CHARS)}`);
  });

  it('reads a file, and fails with exit 1 and a hint for a missing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
    writeFileSync(join(dir, 'out.txt'), 'lookup(id=7)');
    const ok = await runCli(['extract', 'out.txt'], { cwd: dir });
    expect(ok.stdout).toContain('"lookup"');
    const missing = await runCli(['extract', 'nope.txt'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No such file: nope.txt');
    expect(missing.stderr).toContain('hint:');
    expect(missing.stderr).not.toContain('    at ');
  });

  it('adds the stack trace to an error only with --debug', async () => {
    const run = await runCli(['extract', 'nope.txt', '--debug']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No such file: nope.txt');
    expect(run.stderr).toMatch(/\n\s+at /);
  });

  it('prints "no tool calls" for plain prose in a table', async () => {
    const run = await runCli(['extract', '-', '--format', 'table'], { input: 'see (above) and [link](url)' });
    expect(run.stdout).toContain('no tool calls found');
  });
});

describe('toolwire chat', () => {
  let fake: FakeOpenAI | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('rejects an unknown provider prefix with exit 2', async () => {
    const run = await runCli(['chat', 'hi', '--model', 'mystery/model']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown provider "mystery"');
    expect(run.stderr).toContain('openai, ollama, chatgpt');
  });

  it('says what to do, in one line and exit 1, when the provider is unreachable', async () => {
    const run = await runCli(['chat', 'hi', '--model', 'ollama/llama3.2:1b'], { env: { OLLAMA_HOST: 'http://127.0.0.1:9' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Ollama is not reachable at http://127.0.0.1:9');
    expect(run.stderr).not.toContain('    at ');
  });

  it('needs an OpenAI key for openai models', async () => {
    const run = await runCli(['chat', 'hi', '--model', 'openai/gpt-4.1-mini']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('OPENAI_API_KEY is not set');
  });

  it('runs the tool loop: the model calls a built-in tool and answers with its result', async () => {
    fake = await startFakeOpenAI([
      { toolCall: { name: 'calculate', arguments: '{"expression":"17 * 23 + 4"}' } },
      { text: 'The answer is 395.' },
    ]);
    const run = await runCli(['chat', 'What is 17*23+4?', '--model', 'openai/fake-model', '--tools', 'builtin'], {
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test' },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('calculate');
    expect(run.stderr).toContain('395');
    expect(run.stdout).toContain('The answer is 395.');
    // The tool result went back to the model.
    expect(JSON.stringify(fake.requests[1])).toContain('395');
  });

  it('runs the tools of an MCP server given as --tools mcp:<command>, in the sandbox', async () => {
    fake = await startFakeOpenAI([
      { toolCall: { name: 'convert_units', arguments: '{"value":10,"from":"mi","to":"km"}' } },
      { text: 'Ten miles are 16.093 km.' },
    ]);
    const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..');
    const run = await runCli(
      ['chat', 'Convert 10 miles to km', '--model', 'openai/fake-model', '--tools', `builtin,mcp:${process.execPath} dist/demo-mcp-server.js`],
      { env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test' }, cwd: cliDir },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Ten miles are 16.093 km.');
    // The MCP tool was offered next to the built-in ones, and its result went back to the model.
    const offered = (fake.requests[0] as { tools: { function: { name: string } }[] }).tools.map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(['calculate', 'convert_units']));
    expect(JSON.stringify(fake.requests[1])).toContain('10 mi = 16.093 km');
  });

  it('runs the operations of an OpenAPI document given as --tools openapi:<file>', async () => {
    const api = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ city: decodeURIComponent(req.url?.split('/').pop() ?? ''), celsius: 21 }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'toolwire-openapi-'));
      const document = {
        openapi: '3.1.0',
        info: { title: 'Weather', version: '1' },
        servers: [{ url: `http://127.0.0.1:${(api.address() as AddressInfo).port}` }],
        paths: {
          '/weather/{city}': {
            get: { operationId: 'get_weather', parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } },
          },
        },
      };
      writeFileSync(join(dir, 'weather.json'), JSON.stringify(document));
      fake = await startFakeOpenAI([{ toolCall: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { text: 'It is 21 °C in Paris.' }]);
      const run = await runCli(['chat', 'Weather in Paris?', '--model', 'openai/fake-model', '--tools', 'openapi:weather.json'], {
        env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test' },
        cwd: dir,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('It is 21 °C in Paris.');
      expect(JSON.stringify(fake.requests[1])).toContain('\\"celsius\\":21');
    } finally {
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  });

  it('says what went wrong when an MCP server cannot start', async () => {
    const run = await runCli(['chat', 'hi', '--model', 'ollama/x', '--tools', 'mcp:no-such-mcp-server --stdio']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('MCP server "no-such-mcp-server --stdio" is not usable');
  });

  it('prints one JSON event per line with --json', async () => {
    fake = await startFakeOpenAI([{ text: 'hello there' }]);
    const run = await runCli(['chat', 'hi', '--model', 'openai/fake-model', '--json'], {
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test' },
    });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; delta?: string });
    expect(events.some((e) => e.type === 'text-delta' && e.delta?.includes('hello'))).toBe(true);
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('refuses shell commands without a terminal to confirm on, and says to pass --yes', async () => {
    fake = await startFakeOpenAI([{ toolCall: { name: 'shell', arguments: '{"command":["touch","made-by-model"]}' } }, { text: 'ok' }]);
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
    const run = await runCli(['chat', 'make a file', '--model', 'openai/fake-model', '--tools', 'shell'], {
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test' },
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('pass --yes');
    expect(JSON.stringify(fake.requests[1])).toContain('declined');
  });

  it('rejects a tool list entry that is neither a tool set nor a .js file', async () => {
    const run = await runCli(['chat', 'hi', '--model', 'ollama/x', '--tools', 'lasers']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown tool set "lasers"');
  });
});

describe('toolwire serve, login, whoami, models', () => {
  it('fails as a usage error (exit 2) on a config file that is not valid JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
    writeFileSync(join(dir, 'bad.json'), '{ "providers": ');
    const run = await runCli(['serve', '--config', 'bad.json', '--port', '0'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.json/);
    expect(run.stderr).toMatch(/JSON/);
  });

  it('rejects an invalid port with exit 2', async () => {
    const run = await runCli(['serve', '--port', 'eighty']);
    expect(run.code).toBe(2);
  });

  it('refuses to sign in to an unknown provider', async () => {
    const run = await runCli(['login', 'myspace']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Cannot sign in to "myspace"');
  });

  it('reports no sign-in without printing secrets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-'));
    const run = await runCli(['whoami', '--json'], { env: { TOOLWIRE_CHATGPT_AUTH_FILE: join(dir, 'auth.json'), CODEX_HOME: dir } });
    expect(run.code).toBe(0);
    const status = JSON.parse(run.stdout) as { signedIn: boolean };
    expect(status.signedIn).toBe(false);
  });

  it('lists models of a configured OpenAI-compatible server, and fails when none answers', async () => {
    const fake = await startFakeOpenAI([{ text: 'x' }]);
    try {
      const run = await runCli(['models', '--json'], { env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test' } });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout.trim().split('\n')[0] ?? '')).toEqual({ model: 'openai/fake-model', tools: 'native' });
    } finally {
      await fake.close();
    }
    const none = await runCli(['models']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No provider answered');
  });
});

describe('toolwire demo', () => {
  it('walks through extraction, sandboxed tools and the gateway offline, exit 0', async () => {
    const run = await runCli(['demo'], { timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('calculate_triangle_area');
    expect(run.stdout).toContain('✗ refused');
    expect(run.stdout).toContain('REPLAY');
    expect(run.stdout).toContain('gateway ran get_current_time on the server (success');
    expect(run.stdout).toContain('convert_units({"value":42.195,"from":"km","to":"mi"}) → "42.195 km = 26.219 mi"');
    expect(run.stdout).toContain('✗ refused convert_units({"value":1,"from":"km","to":"parsecs"})');
    expect(run.stdout).toContain('toolwire serve');
  }, 90_000);
});
