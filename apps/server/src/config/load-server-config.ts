import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { hashApiKey } from '../auth/hash-key.ts';
import type { ApiKeyConfig } from '../auth/api-key-store.ts';
import { ConfigError } from './config-error.ts';
import { parseConfigFile, redisUrl } from './parse-config-file.ts';
import type { ServerConfig } from './server-config.ts';

/** The largest config file read (4 MiB): a config is a page of JSON, not a data set. */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

/** The `toolwire-server --help` text. */
export const SERVER_USAGE = `Usage: toolwire-server [options]

An OpenAI-compatible gateway: point any OpenAI client at http://HOST:PORT/v1.

Options:
  --config <file>          JSON config file (providers, keys, server tools, MCP servers,
                           OpenAPI documents, limits; see README)
  --port <n>               Port (env PORT, default 8787)
  --host <addr>            Address (env HOST, default 127.0.0.1; non-loopback needs API keys)
  --openai-base-url <url>  OpenAI-compatible upstream (env OPENAI_BASE_URL; key from OPENAI_API_KEY)
  --ollama-host <url>      Ollama server (env OLLAMA_HOST)
  --custom-tools <dir>     Directory of custom server tools
  --allowed-domain <host>  Domain fetch_url may reach (repeatable)
  --log-level <level>      fatal|error|warn|info|debug|trace|silent (default info)
  --hash-key <key>         Print the keyHash to put in the config file for <key>, then exit
  -h, --help               Show this help

Environment: PORT, HOST, OPENAI_API_KEY, OPENAI_BASE_URL, OLLAMA_HOST,
TOOLWIRE_API_KEYS (comma-separated client keys, each "id:key" or just "key"),
TOOLWIRE_REDIS_URL (shared state for several instances, redis://host:port),
TOOLWIRE_METRICS=1 (serve GET /metrics), TOOLWIRE_METRICS_KEY (bearer key for /metrics),
OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_TRACES_EXPORTER=otlp (send traces over OTLP/HTTP).
Precedence: flags, then environment, then the config file.`;

/** What the command line asked for. */
export type ServerCommand = { kind: 'help' } | { kind: 'hash-key'; key: string } | { kind: 'serve'; config: ServerConfig };

/** Options of `loadServerConfig`. */
export interface LoadServerConfigOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Base for a relative `--config` path (default `process.cwd()`). */
  cwd?: string;
}

function portOf(value: string, setting: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ConfigError({ setting, message: `'${value}' is not a port number (0-65535).` });
  return port;
}

/**
 * `TOOLWIRE_API_KEYS`: `id:key,key2` → key configs, hashed at once (plain keys are not kept).
 * An id used twice is a `ConfigError` naming the id (never the key).
 */
export function parseEnvKeys(value: string): ApiKeyConfig[] {
  const ids = new Set<string>();
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry, i) => {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : `env-key-${i + 1}`;
      const key = colon > 0 ? entry.slice(colon + 1) : entry;
      if (ids.has(id)) throw new ConfigError({ setting: 'TOOLWIRE_API_KEYS', message: `the id '${id}' is used twice. Give each key its own id ('id:key').` });
      ids.add(id);
      return { id, keyHash: hashApiKey(key) };
    });
}

/** The file's keys, then the environment's: an id in both would give two keys one principal (limits, turns, logs). */
function withEnvKeys(fileKeys: readonly ApiKeyConfig[], envKeys: readonly ApiKeyConfig[]): ApiKeyConfig[] {
  const fileIds = new Set(fileKeys.map((key) => key.id));
  const reused = envKeys.find((key) => fileIds.has(key.id));
  if (reused !== undefined) {
    throw new ConfigError({
      setting: 'TOOLWIRE_API_KEYS',
      message: `the id '${reused.id}' is also a key's id in the config file ('keys'). Give the environment's key another id ('id:key'), or remove one of them.`,
    });
  }
  return [...fileKeys, ...envKeys];
}

/** Paths in `mcpServers` and `openApi` entries are relative to the config file, like its other paths. */
function resolveDynamicToolPaths(config: ServerConfig, base: string): void {
  for (const server of Object.values(config.mcpServers ?? {})) {
    if (!('command' in server)) continue;
    // A bare command is looked up on the sandbox's PATH; only an explicit relative path is the file's.
    if (server.command.startsWith('./') || server.command.startsWith('../')) server.command = resolve(base, server.command);
    if (server.cwd !== undefined) server.cwd = resolve(base, server.cwd);
    if (server.readOnlyPaths !== undefined) server.readOnlyPaths = server.readOnlyPaths.map((path) => resolve(base, path));
  }
  for (const source of Object.values(config.openApi ?? {})) {
    if (typeof source.document === 'string') source.document = resolve(base, source.document);
  }
}

/**
 * Reads flags, environment and the `--config` file into a `ServerConfig` (flags win over
 * the environment, which wins over the file). Relative paths in the file are resolved
 * against the file's directory. Throws `ConfigError` naming the bad setting.
 */
export async function loadServerConfig(options: LoadServerConfigOptions): Promise<ServerCommand> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...options.argv],
      allowPositionals: false,
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'openai-base-url': { type: 'string' },
        'ollama-host': { type: 'string' },
        'custom-tools': { type: 'string' },
        'allowed-domain': { type: 'string', multiple: true },
        'log-level': { type: 'string' },
        'hash-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new ConfigError({ setting: 'arguments', message: `${(error as Error).message}. Run with --help for the options.` });
  }
  const flags = parsed.values;
  if (flags.help === true) return { kind: 'help' };
  if (flags['hash-key'] !== undefined) return { kind: 'hash-key', key: flags['hash-key'] };

  const env = options.env;
  const cwd = options.cwd ?? process.cwd();
  let config: ServerConfig = {};
  if (flags.config !== undefined) {
    const path = resolve(cwd, flags.config);
    let text: string;
    try {
      // A FIFO would block the read until a writer comes (maybe never), a device never ends.
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a regular file');
      if (info.size > MAX_CONFIG_FILE_BYTES) throw new Error(`larger than ${MAX_CONFIG_FILE_BYTES / (1024 * 1024)} MiB`);
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new ConfigError({ setting: '--config', message: `cannot read ${path}: ${(error as Error).message}` });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ConfigError({ setting: '--config', message: `${path} is not valid JSON: ${(error as Error).message}` });
    }
    config = parseConfigFile(json, { env: options.env });
    const base = dirname(path);
    resolveDynamicToolPaths(config, base);
    if (config.tools?.customToolsPath !== undefined) config.tools.customToolsPath = resolve(base, config.tools.customToolsPath);
    const transcripts = config.providers?.replay?.transcripts;
    if (transcripts) for (const name of Object.keys(transcripts)) transcripts[name] = resolve(base, transcripts[name] ?? '');
    if (config.providers?.chatgpt?.authFile !== undefined) config.providers.chatgpt.authFile = resolve(base, config.providers.chatgpt.authFile);
  }

  const host = flags.host ?? env.HOST;
  if (host !== undefined && host !== '') config.host = host;
  if (flags.port !== undefined) config.port = portOf(flags.port, '--port');
  else if (env.PORT !== undefined && env.PORT !== '') config.port = portOf(env.PORT, 'PORT');
  if (flags['log-level'] !== undefined) config.logLevel = flags['log-level'];

  const providers = (config.providers ??= {});
  const openaiBaseURL = flags['openai-base-url'] ?? env.OPENAI_BASE_URL;
  const openaiKey = env.OPENAI_API_KEY;
  if ((openaiBaseURL !== undefined && openaiBaseURL !== '') || (openaiKey !== undefined && openaiKey !== '') || providers.openai) {
    const openai = (providers.openai ??= {});
    if (openaiBaseURL !== undefined && openaiBaseURL !== '') openai.baseURL = openaiBaseURL;
    if (openaiKey !== undefined && openaiKey !== '') openai.apiKey = openaiKey;
  }
  const ollamaHost = flags['ollama-host'] ?? env.OLLAMA_HOST;
  if (ollamaHost !== undefined && ollamaHost !== '') providers.ollama = { host: ollamaHost };
  // With nothing configured, a local Ollama is the one provider that needs no setup.
  if (Object.keys(providers).length === 0) providers.ollama = {};

  if (env.TOOLWIRE_API_KEYS !== undefined && env.TOOLWIRE_API_KEYS !== '') {
    config.keys = withEnvKeys(config.keys ?? [], parseEnvKeys(env.TOOLWIRE_API_KEYS));
  }
  const redisEnv = env.TOOLWIRE_REDIS_URL;
  if (redisEnv !== undefined && redisEnv !== '') {
    const url = redisUrl(redisEnv, 'TOOLWIRE_REDIS_URL') ?? redisEnv;
    config.state = { ...config.state, redis: { ...config.state?.redis, url } };
  }
  const metricsKey = env.TOOLWIRE_METRICS_KEY;
  if (metricsKey !== undefined && metricsKey !== '') config.metrics = { ...config.metrics, enabled: true, keyHash: hashApiKey(metricsKey) };
  else if (env.TOOLWIRE_METRICS === '1' || env.TOOLWIRE_METRICS === 'true') config.metrics = { ...config.metrics, enabled: true };
  if (flags['custom-tools'] !== undefined) (config.tools ??= {}).customToolsPath = resolve(cwd, flags['custom-tools']);
  if (flags['allowed-domain'] !== undefined) (config.tools ??= {}).allowedDomains = flags['allowed-domain'];
  return { kind: 'serve', config };
}
