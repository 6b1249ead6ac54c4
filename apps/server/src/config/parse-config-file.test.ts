import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../auth/hash-key.ts';
import { ConfigError } from './config-error.ts';
import { parseConfigFile } from './parse-config-file.ts';

function settingOf(raw: unknown): string {
  try {
    parseConfigFile(raw);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.setting;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfigFile', () => {
  it('reads a complete config', () => {
    const keyHash = hashApiKey('sk-team');
    const config = parseConfigFile({
      host: '0.0.0.0',
      port: 8787,
      providers: { openai: { baseURL: 'https://api.openai.com/v1', models: ['gpt-4o'] }, ollama: { host: 'http://127.0.0.1:11434' }, replay: { transcripts: { demo: 'demo.json' } } },
      keys: [{ id: 'team', keyHash, models: ['ollama/*'], tools: ['calculate'], alwaysTools: ['get_current_time'], requestsPerMinute: 60 }],
      tools: { builtins: ['calculate', 'fetch_url'], customToolsPath: './tools', allowedDomains: ['api.example.com'], maxConcurrent: 4, timeoutMs: 5000 },
      limits: { bodyLimitBytes: 1_048_576, maxSteps: 5, shutdownGraceMs: 10_000, drainDelayMs: 5000 },
      logLevel: 'warn',
    });
    expect(config.keys?.[0]).toEqual({ id: 'team', keyHash, models: ['ollama/*'], tools: ['calculate'], alwaysTools: ['get_current_time'], requestsPerMinute: 60 });
    expect(config.tools?.builtins).toEqual(['calculate', 'fetch_url']);
    expect(config.providers?.replay?.transcripts).toEqual({ demo: 'demo.json' });
  });

  it('reads shared state, metrics and per-key concurrency, refusing what cannot work', () => {
    const hash = hashApiKey('sk-metrics');
    expect(
      parseConfigFile({
        state: { redis: { url: 'redis://127.0.0.1:6379', keyPrefix: 'tw:', commandTimeoutMs: 500 } },
        metrics: { enabled: true, keyHash: hash },
        keys: [{ id: 'a', keyHash: hashApiKey('sk-a'), maxConcurrentRequests: 4 }],
      }),
    ).toMatchObject({
      state: { redis: { url: 'redis://127.0.0.1:6379', keyPrefix: 'tw:', commandTimeoutMs: 500 } },
      metrics: { enabled: true, keyHash: hash },
      keys: [{ id: 'a', maxConcurrentRequests: 4 }],
    });
    expect(settingOf({ state: { redis: { url: 'http://127.0.0.1:6379' } } })).toBe('state.redis.url');
    expect(settingOf({ state: { redis: {} } })).toBe('state.redis.url');
    expect(settingOf({ state: { memcached: {} } })).toBe('state.memcached');
    expect(settingOf({ metrics: { key: 'sk-plain' } })).toBe('metrics.key');
    expect(settingOf({ metrics: { enabled: 'yes' } })).toBe('metrics.enabled');
    expect(settingOf({ keys: [{ id: 'a', keyHash: hashApiKey('x'), maxConcurrentRequests: 0 }] })).toBe('keys[0].maxConcurrentRequests');
  });

  it('refuses plain keys, pointing at --hash-key', () => {
    expect(settingOf({ keys: [{ id: 'a', key: 'sk-plain' }] })).toBe('keys[0].key');
  });

  it('refuses a keyHash that is not sha256 hex', () => {
    expect(settingOf({ keys: [{ id: 'a', keyHash: 'md5:abc' }] })).toBe('keys[0].keyHash');
  });

  it('refuses a key without an id, and duplicated ids', () => {
    const keyHash = hashApiKey('x');
    expect(settingOf({ keys: [{ keyHash }] })).toBe('keys[0].id');
    expect(settingOf({ keys: [{ id: 'a', keyHash }, { id: 'a', keyHash }] })).toBe('keys[1].id');
  });

  it('refuses an OpenAI key in the file', () => {
    expect(settingOf({ providers: { openai: { apiKey: 'sk-secret' } } })).toBe('providers.openai.apiKey');
  });

  it('refuses unknown settings, providers and built-ins by name', () => {
    expect(settingOf({ prot: 1 })).toBe('prot');
    expect(settingOf({ providers: { anthropic: {} } })).toBe('providers.anthropic');
    expect(settingOf({ tools: { builtins: ['shell'] } })).toBe('tools.builtins');
  });

  it('reads the ChatGPT backend and sign-in server URLs, refusing ones that are not http(s)', () => {
    const config = parseConfigFile({ providers: { chatgpt: { baseURL: 'http://127.0.0.1:9000/backend-api', issuer: 'https://auth.example.com' } } });
    expect(config.providers?.chatgpt).toEqual({ baseURL: 'http://127.0.0.1:9000/backend-api', issuer: 'https://auth.example.com' });
    expect(settingOf({ providers: { chatgpt: { baseURL: 'chatgpt.com/backend-api' } } })).toBe('providers.chatgpt.baseURL');
    expect(settingOf({ providers: { chatgpt: { issuer: 'file:///etc/passwd' } } })).toBe('providers.chatgpt.issuer');
  });

  it('reads the listen backlog', () => {
    expect(parseConfigFile({ limits: { listenBacklog: 8192 } }).limits).toEqual({ listenBacklog: 8192 });
    expect(parseConfigFile({ limits: { listenSockets: 4 } }).limits).toEqual({ listenSockets: 4 });
  });

  it('reads the model list timeout', () => {
    expect(parseConfigFile({ limits: { modelListTimeoutMs: 2000 } }).limits).toEqual({ modelListTimeoutMs: 2000 });
    expect(settingOf({ limits: { modelListTimeoutMs: 0 } })).toBe('limits.modelListTimeoutMs');
  });

  it('reads the upstream message limit (0 disables it)', () => {
    expect(parseConfigFile({ limits: { upstreamMessageLimitBytes: 1_048_576 } }).limits).toEqual({ upstreamMessageLimitBytes: 1_048_576 });
    expect(parseConfigFile({ limits: { upstreamMessageLimitBytes: 0 } }).limits).toEqual({ upstreamMessageLimitBytes: 0 });
    expect(settingOf({ limits: { upstreamMessageLimitBytes: '16MiB' } })).toBe('limits.upstreamMessageLimitBytes');
    expect(parseConfigFile({ limits: { upstreamAnswerLimitChars: 8_388_608, upstreamAnswerToolCallLimit: 0 } }).limits).toEqual({ upstreamAnswerLimitChars: 8_388_608, upstreamAnswerToolCallLimit: 0 });
    expect(settingOf({ limits: { upstreamAnswerLimitChars: -1 } })).toBe('limits.upstreamAnswerLimitChars');
    expect(settingOf({ limits: { upstreamAnswerToolCallLimit: 'many' } })).toBe('limits.upstreamAnswerToolCallLimit');
  });

  it('reads the drain delay (0 allowed)', () => {
    expect(parseConfigFile({ limits: { drainDelayMs: 5000, shutdownGraceMs: 0 } }).limits).toEqual({ drainDelayMs: 5000, shutdownGraceMs: 0 });
    expect(parseConfigFile({ limits: { drainDelayMs: 0 } }).limits).toEqual({ drainDelayMs: 0 });
    expect(settingOf({ limits: { drainDelayMs: -1 } })).toBe('limits.drainDelayMs');
    expect(settingOf({ limits: { drainDelayMs: '5s' } })).toBe('limits.drainDelayMs');
  });

  it('refuses wrong types', () => {
    expect(settingOf({ port: '80' })).toBe('port');
    expect(settingOf({ limits: { maxSteps: 0 } })).toBe('limits.maxSteps');
    expect(settingOf({ limits: { listenBacklog: 0 } })).toBe('limits.listenBacklog');
    expect(settingOf({ limits: { listenSockets: 0 } })).toBe('limits.listenSockets');
    expect(settingOf({ limits: { listenSockets: 65 } })).toBe('limits.listenSockets');
    expect(settingOf({ tools: { allowedDomains: 'example.com' } })).toBe('tools.allowedDomains');
  });
});
