import type { ApiKeyConfig } from '../auth/api-key-store.ts';
import { fail, httpUrl, isObject, str } from './config-values.ts';
import { parseDynamicTools } from './parse-dynamic-tools.ts';
import type { BuiltinToolName, ServerConfig } from './server-config.ts';


const BUILTINS: readonly BuiltinToolName[] = ['get_current_time', 'calculate', 'fetch_url'];
const TOP_LEVEL = new Set(['$schema', 'host', 'port', 'providers', 'keys', 'tools', 'limits', 'state', 'metrics', 'logLevel', 'mcpServers', 'openApi']);





function strings(value: unknown, setting: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) fail(setting, 'expected an array of strings.');
  return value;
}

function positive(value: unknown, setting: string, options: { allowZero?: boolean } = {}): number | undefined {
  if (value === undefined) return undefined;
  const min = options.allowZero === true ? 0 : 1;
  // A safe integer: past 2^53 a number no longer counts one by one (and core's options refuse it).
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) fail(setting, `expected an integer from ${min} to ${Number.MAX_SAFE_INTEGER}.`);
  return value;
}

function parseKeys(raw: unknown): ApiKeyConfig[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) fail('keys', 'expected an array of keys.');
  const ids = new Set<string>();
  return raw.map((entry: unknown, i): ApiKeyConfig => {
    const at = `keys[${i}]`;
    if (!isObject(entry)) fail(at, 'expected an object.');
    if ('key' in entry) {
      fail(`${at}.key`, "plain keys are not stored in the config file. Run 'toolwire-server --hash-key <key>' and put the output in 'keyHash'.");
    }
    const id = str(entry.id, `${at}.id`) ?? fail(`${at}.id`, 'every key needs an id (used in logs instead of the key).');
    if (ids.has(id)) fail(`${at}.id`, `the id '${id}' is used twice.`);
    ids.add(id);
    const keyHash = str(entry.keyHash, `${at}.keyHash`) ?? fail(`${at}.keyHash`, "missing; run 'toolwire-server --hash-key <key>'.");
    if (!/^sha256:[0-9a-fA-F]{64}$/.test(keyHash)) fail(`${at}.keyHash`, "expected 'sha256:' followed by 64 hex digits.");
    const key: ApiKeyConfig = { id, keyHash };
    const models = strings(entry.models, `${at}.models`);
    if (models) key.models = models;
    const tools = strings(entry.tools, `${at}.tools`);
    if (tools) key.tools = tools;
    const alwaysTools = strings(entry.alwaysTools, `${at}.alwaysTools`);
    if (alwaysTools) key.alwaysTools = alwaysTools;
    const rpm = positive(entry.requestsPerMinute, `${at}.requestsPerMinute`);
    if (rpm !== undefined) key.requestsPerMinute = rpm;
    const maxConcurrentRequests = positive(entry.maxConcurrentRequests, `${at}.maxConcurrentRequests`);
    if (maxConcurrentRequests !== undefined) key.maxConcurrentRequests = maxConcurrentRequests;
    return key;
  });
}

/**
 * Validates the JSON config file's content (see the README for an example) and returns
 * the matching `ServerConfig`. Secrets the file names by environment variable (`mcpServers`,
 * `openApi`) are read from `options.env`. Throws a `ConfigError` naming the first bad setting.
 */
export function parseConfigFile(raw: unknown, options: { env?: Readonly<Record<string, string | undefined>> } = {}): ServerConfig {
  if (!isObject(raw)) fail('config', 'the config file must hold a JSON object.');
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL.has(key)) fail(key, `unknown setting. Known: ${[...TOP_LEVEL].filter((k) => k !== '$schema').join(', ')}.`);
  }
  const config: ServerConfig = {};
  const host = str(raw.host, 'host');
  if (host !== undefined) config.host = host;
  const port = positive(raw.port, 'port', { allowZero: true });
  if (port !== undefined) config.port = port;
  const logLevel = str(raw.logLevel, 'logLevel');
  if (logLevel !== undefined) config.logLevel = logLevel;

  if (raw.providers !== undefined) {
    const p = raw.providers;
    if (!isObject(p)) fail('providers', 'expected an object.');
    config.providers = {};
    if (p.openai !== undefined) {
      if (!isObject(p.openai)) fail('providers.openai', 'expected an object.');
      if ('apiKey' in p.openai) fail('providers.openai.apiKey', 'keep secrets out of the config file; set OPENAI_API_KEY instead.');
      const openai: NonNullable<ServerConfig['providers']>['openai'] = {};
      const baseURL = str(p.openai.baseURL, 'providers.openai.baseURL');
      if (baseURL !== undefined) openai.baseURL = baseURL;
      const models = strings(p.openai.models, 'providers.openai.models');
      if (models) openai.models = models;
      config.providers.openai = openai;
    }
    if (p.ollama !== undefined) {
      if (!isObject(p.ollama)) fail('providers.ollama', 'expected an object.');
      const hostValue = str(p.ollama.host, 'providers.ollama.host');
      config.providers.ollama = hostValue === undefined ? {} : { host: hostValue };
    }
    if (p.chatgpt !== undefined) {
      if (!isObject(p.chatgpt)) fail('providers.chatgpt', 'expected an object.');
      const chatgpt: NonNullable<ServerConfig['providers']>['chatgpt'] = {};
      const authFile = str(p.chatgpt.authFile, 'providers.chatgpt.authFile');
      if (authFile !== undefined) chatgpt.authFile = authFile;
      const models = strings(p.chatgpt.models, 'providers.chatgpt.models');
      if (models) chatgpt.models = models;
      const baseURL = httpUrl(p.chatgpt.baseURL, 'providers.chatgpt.baseURL', 'https://chatgpt.com/backend-api');
      if (baseURL !== undefined) chatgpt.baseURL = baseURL;
      const issuer = httpUrl(p.chatgpt.issuer, 'providers.chatgpt.issuer', 'https://auth.openai.com');
      if (issuer !== undefined) chatgpt.issuer = issuer;
      config.providers.chatgpt = chatgpt;
    }
    if (p.replay !== undefined) {
      if (!isObject(p.replay) || !isObject(p.replay.transcripts)) fail('providers.replay.transcripts', 'expected an object of name → transcript file.');
      const transcripts: Record<string, string> = {};
      for (const [name, file] of Object.entries(p.replay.transcripts)) {
        transcripts[name] = str(file, `providers.replay.transcripts.${name}`) ?? '';
      }
      config.providers.replay = { transcripts };
      if (p.replay.textTools !== undefined) {
        if (typeof p.replay.textTools !== 'boolean') fail('providers.replay.textTools', 'expected true or false.');
        config.providers.replay.textTools = p.replay.textTools;
      }
    }
    for (const key of Object.keys(p)) {
      if (!['openai', 'ollama', 'chatgpt', 'replay'].includes(key)) fail(`providers.${key}`, 'unknown provider. Known: openai, ollama, chatgpt, replay.');
    }
  }

  const keys = parseKeys(raw.keys);
  if (keys) config.keys = keys;

  if (raw.tools !== undefined) {
    const t = raw.tools;
    if (!isObject(t)) fail('tools', 'expected an object.');
    config.tools = {};
    const builtins = strings(t.builtins, 'tools.builtins');
    if (builtins) {
      for (const name of builtins) {
        if (!BUILTINS.includes(name as BuiltinToolName)) fail('tools.builtins', `unknown built-in '${name}'. Known: ${BUILTINS.join(', ')}.`);
      }
      config.tools.builtins = builtins as BuiltinToolName[];
    }
    const customToolsPath = str(t.customToolsPath, 'tools.customToolsPath');
    if (customToolsPath !== undefined) config.tools.customToolsPath = customToolsPath;
    const allowedDomains = strings(t.allowedDomains, 'tools.allowedDomains');
    if (allowedDomains) config.tools.allowedDomains = allowedDomains;
    const maxConcurrent = positive(t.maxConcurrent, 'tools.maxConcurrent');
    if (maxConcurrent !== undefined) config.tools.maxConcurrent = maxConcurrent;
    const timeoutMs = positive(t.timeoutMs, 'tools.timeoutMs');
    if (timeoutMs !== undefined) config.tools.timeoutMs = timeoutMs;
  }

  if (raw.limits !== undefined) {
    const l = raw.limits;
    if (!isObject(l)) fail('limits', 'expected an object.');
    config.limits = {};
    const bodyLimitBytes = positive(l.bodyLimitBytes, 'limits.bodyLimitBytes');
    if (bodyLimitBytes !== undefined) config.limits.bodyLimitBytes = bodyLimitBytes;
    const maxSteps = positive(l.maxSteps, 'limits.maxSteps');
    if (maxSteps !== undefined) config.limits.maxSteps = maxSteps;
    const shutdownGraceMs = positive(l.shutdownGraceMs, 'limits.shutdownGraceMs', { allowZero: true });
    if (shutdownGraceMs !== undefined) config.limits.shutdownGraceMs = shutdownGraceMs;
    const drainDelayMs = positive(l.drainDelayMs, 'limits.drainDelayMs', { allowZero: true });
    if (drainDelayMs !== undefined) config.limits.drainDelayMs = drainDelayMs;
    const maxPendingBodiesPerKey = positive(l.maxPendingBodiesPerKey, 'limits.maxPendingBodiesPerKey');
    if (maxPendingBodiesPerKey !== undefined) config.limits.maxPendingBodiesPerKey = maxPendingBodiesPerKey;
    const requestTimeoutMs = positive(l.requestTimeoutMs, 'limits.requestTimeoutMs');
    if (requestTimeoutMs !== undefined) config.limits.requestTimeoutMs = requestTimeoutMs;
    const headersTimeoutMs = positive(l.headersTimeoutMs, 'limits.headersTimeoutMs');
    if (headersTimeoutMs !== undefined) config.limits.headersTimeoutMs = headersTimeoutMs;
    const connectionTimeoutMs = positive(l.connectionTimeoutMs, 'limits.connectionTimeoutMs', { allowZero: true });
    if (connectionTimeoutMs !== undefined) config.limits.connectionTimeoutMs = connectionTimeoutMs;
    const upstreamIdleTimeoutMs = positive(l.upstreamIdleTimeoutMs, 'limits.upstreamIdleTimeoutMs', { allowZero: true });
    if (upstreamIdleTimeoutMs !== undefined) config.limits.upstreamIdleTimeoutMs = upstreamIdleTimeoutMs;
    const maxRequestDurationMs = positive(l.maxRequestDurationMs, 'limits.maxRequestDurationMs', { allowZero: true });
    if (maxRequestDurationMs !== undefined) config.limits.maxRequestDurationMs = maxRequestDurationMs;
    const upstreamMessageLimitBytes = positive(l.upstreamMessageLimitBytes, 'limits.upstreamMessageLimitBytes', { allowZero: true });
    if (upstreamMessageLimitBytes !== undefined) config.limits.upstreamMessageLimitBytes = upstreamMessageLimitBytes;
    const upstreamAnswerLimitChars = positive(l.upstreamAnswerLimitChars, 'limits.upstreamAnswerLimitChars', { allowZero: true });
    if (upstreamAnswerLimitChars !== undefined) config.limits.upstreamAnswerLimitChars = upstreamAnswerLimitChars;
    const upstreamAnswerToolCallLimit = positive(l.upstreamAnswerToolCallLimit, 'limits.upstreamAnswerToolCallLimit', { allowZero: true });
    if (upstreamAnswerToolCallLimit !== undefined) config.limits.upstreamAnswerToolCallLimit = upstreamAnswerToolCallLimit;
    const modelListTimeoutMs = positive(l.modelListTimeoutMs, 'limits.modelListTimeoutMs');
    if (modelListTimeoutMs !== undefined) config.limits.modelListTimeoutMs = modelListTimeoutMs;
    const listenBacklog = positive(l.listenBacklog, 'limits.listenBacklog');
    if (listenBacklog !== undefined) config.limits.listenBacklog = listenBacklog;
    const listenSockets = positive(l.listenSockets, 'limits.listenSockets');
    if (listenSockets !== undefined && listenSockets > 64) fail('limits.listenSockets', 'expected at most 64 (8 already take a burst of thousands of clients in a few turns of the event loop).');
    if (listenSockets !== undefined) config.limits.listenSockets = listenSockets;
  }
  if (raw.state !== undefined) {
    const st = raw.state;
    if (!isObject(st)) fail('state', 'expected an object.');
    for (const key of Object.keys(st)) if (key !== 'redis') fail(`state.${key}`, 'unknown setting. Known: redis.');
    if (st.redis !== undefined) {
      const r = st.redis;
      if (!isObject(r)) fail('state.redis', 'expected an object like { "url": "redis://127.0.0.1:6379" }.');
      const url = redisUrl(r.url, 'state.redis.url') ?? fail('state.redis.url', 'missing; e.g. redis://127.0.0.1:6379 (or set TOOLWIRE_REDIS_URL).');
      const redis: NonNullable<NonNullable<ServerConfig['state']>['redis']> = { url };
      const keyPrefix = str(r.keyPrefix, 'state.redis.keyPrefix');
      if (keyPrefix !== undefined) redis.keyPrefix = keyPrefix;
      const commandTimeoutMs = positive(r.commandTimeoutMs, 'state.redis.commandTimeoutMs');
      if (commandTimeoutMs !== undefined) redis.commandTimeoutMs = commandTimeoutMs;
      config.state = { redis };
    }
  }

  if (raw.metrics !== undefined) {
    const m = raw.metrics;
    if (!isObject(m)) fail('metrics', 'expected an object like { "enabled": true }.');
    config.metrics = {};
    if (m.enabled !== undefined) {
      if (typeof m.enabled !== 'boolean') fail('metrics.enabled', 'expected true or false.');
      config.metrics.enabled = m.enabled;
    }
    if ('key' in m) fail('metrics.key', "plain keys are not stored in the config file. Run 'toolwire-server --hash-key <key>' and put the output in 'keyHash'.");
    const keyHash = str(m.keyHash, 'metrics.keyHash');
    if (keyHash !== undefined) {
      if (!/^sha256:[0-9a-fA-F]{64}$/.test(keyHash)) fail('metrics.keyHash', "expected 'sha256:' followed by 64 hex digits.");
      config.metrics.keyHash = keyHash;
    }
  }
  const dynamic = parseDynamicTools(raw, options.env ?? {});
  if (dynamic.mcpServers !== undefined) config.mcpServers = dynamic.mcpServers;
  if (dynamic.openApi !== undefined) config.openApi = dynamic.openApi;
  return config;
}

/** A `redis://` or `rediss://` URL. */
export function redisUrl(value: unknown, setting: string): string | undefined {
  const text = str(value, setting);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(setting, 'not a URL; expected e.g. redis://127.0.0.1:6379.');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') fail(setting, `expected a redis:// or rediss:// URL, got '${url.protocol}'.`);
  return text;
}
