import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../auth/hash-key.ts';
import { runServerCommand } from '../run-server-command.ts';
import { ConfigError } from './config-error.ts';
import { loadServerConfig, MAX_CONFIG_FILE_BYTES } from './load-server-config.ts';
import type { ServerConfig } from './server-config.ts';

async function serve(argv: string[], env: Record<string, string> = {}, cwd?: string): Promise<ServerConfig> {
  const command = await loadServerConfig({ argv, env, ...(cwd === undefined ? {} : { cwd }) });
  if (command.kind !== 'serve') throw new Error(`expected serve, got ${command.kind}`);
  return command.config;
}

describe('loadServerConfig', () => {
  it('defaults to a local Ollama when nothing is configured', async () => {
    expect(await serve([])).toEqual({ providers: { ollama: {} } });
  });

  it('reads TOOLWIRE_REDIS_URL, TOOLWIRE_METRICS and TOOLWIRE_METRICS_KEY (hashed at once)', async () => {
    expect(await serve([], { TOOLWIRE_REDIS_URL: 'redis://127.0.0.1:6390' })).toMatchObject({ state: { redis: { url: 'redis://127.0.0.1:6390' } } });
    expect(await serve([], { TOOLWIRE_METRICS: '1' })).toMatchObject({ metrics: { enabled: true } });
    const config = await serve([], { TOOLWIRE_METRICS_KEY: 'sk-scrape' });
    expect(config.metrics).toEqual({ enabled: true, keyHash: hashApiKey('sk-scrape') });
    await expect(serve([], { TOOLWIRE_REDIS_URL: 'localhost:6379' })).rejects.toSatisfy((error: unknown) => ConfigError.isInstance(error) && error.setting === 'TOOLWIRE_REDIS_URL');
  });

  it('reads the usual environment, hashing TOOLWIRE_API_KEYS at once', async () => {
    const config = await serve([], {
      PORT: '9000',
      HOST: '0.0.0.0',
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1',
      OLLAMA_HOST: 'http://127.0.0.1:11434',
      TOOLWIRE_API_KEYS: 'alice:sk-a, sk-b',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      providers: { openai: { apiKey: 'sk-upstream', baseURL: 'http://127.0.0.1:1234/v1' }, ollama: { host: 'http://127.0.0.1:11434' } },
      keys: [
        { id: 'alice', keyHash: hashApiKey('sk-a') },
        { id: 'env-key-2', keyHash: hashApiKey('sk-b') },
      ],
    });
    expect(JSON.stringify(config.keys)).not.toContain('sk-a');
  });

  it('refuses a key id that TOOLWIRE_API_KEYS reuses (from the file or its own), naming the id and never the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolwire-config-'));
    await writeFile(join(dir, 'gateway.json'), JSON.stringify({ keys: [{ id: 'team-a', keyHash: `sha256:${'0'.repeat(64)}`, requestsPerMinute: 2 }] }));
    const refusal = async (env: Record<string, string>): Promise<ConfigError> => {
      const error: unknown = await serve(['--config', 'gateway.json'], env, dir).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      if (!ConfigError.isInstance(error)) throw new Error(`expected a ConfigError, got ${String(error)}`);
      return error;
    };
    const fromFile = await refusal({ TOOLWIRE_API_KEYS: 'team-a:sk-other-team' });
    expect(fromFile.setting).toBe('TOOLWIRE_API_KEYS');
    expect(fromFile.message).toContain("the id 'team-a' is also a key's id in the config file");
    expect(fromFile.message).not.toContain('sk-other-team');
    const twice = await refusal({ TOOLWIRE_API_KEYS: 'ops:sk-first,ops:sk-second' });
    expect(twice.message).toBe("TOOLWIRE_API_KEYS: the id 'ops' is used twice. Give each key its own id ('id:key').");
    // A generated id counts as well.
    await expect(serve([], { TOOLWIRE_API_KEYS: 'sk-x, env-key-1:sk-y' })).rejects.toSatisfy((error: unknown) => ConfigError.isInstance(error) && error.message.includes("'env-key-1'"));
    // Distinct ids are fine, and keep the file's first.
    expect((await serve(['--config', 'gateway.json'], { TOOLWIRE_API_KEYS: 'team-b:sk-b' }, dir)).keys?.map((key) => key.id)).toEqual(['team-a', 'team-b']);
  });

  it('lets flags win over the environment, and the environment over the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolwire-config-'));
    await writeFile(join(dir, 'gateway.json'), JSON.stringify({ port: 1111, host: '127.0.0.2', tools: { customToolsPath: 'my-tools' }, providers: { replay: { transcripts: { demo: 'demo.json' } } } }));
    const config = await serve(['--config', 'gateway.json', '--port', '3333'], { PORT: '2222', HOST: '127.0.0.3' }, dir);
    expect(config.port).toBe(3333);
    expect(config.host).toBe('127.0.0.3');
    // Paths in the file are relative to the file.
    expect(config.tools?.customToolsPath).toBe(join(dir, 'my-tools'));
    expect(config.providers?.replay?.transcripts.demo).toBe(join(dir, 'demo.json'));
  });

  it('names the bad setting for an unreadable or invalid file and a bad port', async () => {
    await expect(loadServerConfig({ argv: ['--config', '/nonexistent/x.json'], env: {} })).rejects.toMatchObject({ setting: '--config' });
    await expect(loadServerConfig({ argv: ['--port', 'abc'], env: {} })).rejects.toBeInstanceOf(ConfigError);
  });

  it('refuses a config path that is a FIFO, a directory or too large, at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolwire-config-'));
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    await expect(loadServerConfig({ argv: ['--config', join(dir, 'fifo.json')], env: {} })).rejects.toThrow(/--config.*not a regular file/);
    await expect(loadServerConfig({ argv: ['--config', dir], env: {} })).rejects.toThrow(/not a regular file/);
    await writeFile(join(dir, 'big.json'), `{"host":"${'x'.repeat(MAX_CONFIG_FILE_BYTES)}"}`);
    await expect(loadServerConfig({ argv: ['--config', join(dir, 'big.json')], env: {} })).rejects.toThrow(/larger than 4 MiB/);
    await expect(loadServerConfig({ argv: ['--bogus'], env: {} })).rejects.toMatchObject({ setting: 'arguments' });
  });
});

describe('runServerCommand', () => {
  it('prints the help with every environment variable', async () => {
    let out = '';
    expect(await runServerCommand({ argv: ['--help'], env: {}, print: (t) => (out += t) })).toBe(0);
    for (const name of ['PORT', 'HOST', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OLLAMA_HOST', 'TOOLWIRE_API_KEYS', '--config']) expect(out).toContain(name);
  });

  it('prints the keyHash for --hash-key', async () => {
    let out = '';
    await runServerCommand({ argv: ['--hash-key', 'sk-1'], env: {}, print: (t) => (out += t) });
    expect(out).toBe(hashApiKey('sk-1'));
  });

  it('exits 2 with the setting named for a bad configuration', async () => {
    let err = '';
    expect(await runServerCommand({ argv: ['--port', 'x'], env: {}, printError: (t) => (err += t) })).toBe(2);
    expect(err).toContain('--port');
  });

  it('exits 1 when asked to listen beyond loopback without keys', async () => {
    let err = '';
    expect(await runServerCommand({ argv: ['--host', '0.0.0.0', '--port', '0', '--log-level', 'silent'], env: {}, printError: (t) => (err += t) })).toBe(1);
    expect(err).toContain('without API keys');
  });
});
