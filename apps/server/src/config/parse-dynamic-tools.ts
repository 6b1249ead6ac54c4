import type { OpenApiAuth } from '@toolwire/openapi';
import type { CommandLimits } from '@toolwire/sandbox';
import { fail, httpUrl, isObject, str } from './config-values.ts';
import type { Json } from './config-values.ts';
import type { McpServerConfig, OpenApiSourceConfig } from './dynamic-tools-config.ts';

type Env = Readonly<Record<string, string | undefined>>;

const STDIO_FIELDS = new Set(['command', 'args', 'env', 'passEnv', 'cwd', 'readOnlyPaths', 'network', 'limits', 'optional']);
const HTTP_FIELDS = new Set(['url', 'headers', 'headersFromEnv', 'allowedDomains', 'allowPrivateNetwork', 'optional']);
const OPENAPI_FIELDS = new Set(['document', 'baseURL', 'operations', 'auth', 'headers', 'headersFromEnv', 'allowedDomains', 'allowPrivateNetwork', 'optional']);
const LIMIT_FIELDS = new Set(['memoryMb', 'totalMemoryMb', 'cpuSeconds', 'fileSizeMb', 'processes', 'openFiles', 'tmpSizeMb', 'shmSizeMb']);
// Headers that carry credentials: never written into the config file, where they end up in
// backups and diffs.
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);
const MAX_NAME_LENGTH = 32;




function strings(value: unknown, setting: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string' && v !== '')) fail(setting, 'expected an array of non-empty strings.');
  return value;
}

function bool(value: unknown, setting: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') fail(setting, 'expected true or false.');
  return value;
}

function stringMap(value: unknown, setting: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) fail(setting, 'expected an object of name → string.');
  const map: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') fail(`${setting}.${name}`, 'expected a string.');
    map[name] = v;
  }
  return map;
}


function checkFields(entry: Json, known: Set<string>, setting: string): void {
  for (const key of Object.keys(entry)) {
    if (!known.has(key)) fail(`${setting}.${key}`, `unknown setting. Known: ${[...known].join(', ')}.`);
  }
}

/** The value of the environment variable `name`, which must be set: the file names it, the environment holds the secret. */
function fromEnv(name: unknown, setting: string, env: Env): string {
  const variable = str(name, setting) ?? fail(setting, 'expected the name of an environment variable.');
  const value = env[variable];
  if (value === undefined || value === '') fail(setting, `the environment variable ${variable} is not set (or empty); set it before starting the gateway.`);
  return value;
}

function headers(entry: Json, setting: string, env: Env): Record<string, string> | undefined {
  const inline = stringMap(entry.headers, `${setting}.headers`);
  for (const name of Object.keys(inline ?? {})) {
    if (SECRET_HEADERS.has(name.toLowerCase())) {
      fail(`${setting}.headers.${name}`, `keep secrets out of the config file; put the value in an environment variable and name it in "headersFromEnv": { "${name}": "MY_VARIABLE" }.`);
    }
  }
  const named = stringMap(entry.headersFromEnv, `${setting}.headersFromEnv`);
  if (inline === undefined && named === undefined) return undefined;
  const all: Record<string, string> = { ...inline };
  for (const [name, variable] of Object.entries(named ?? {})) all[name] = fromEnv(variable, `${setting}.headersFromEnv.${name}`, env);
  return all;
}

function sourceName(name: string, setting: string): void {
  // The name becomes the tools' prefix (`<name>_<tool>`), so it must be valid in a tool name.
  let ok = name.length > 0 && name.length <= MAX_NAME_LENGTH;
  for (let i = 0; ok && i < name.length; i++) {
    const c = name.charCodeAt(i);
    ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
  }
  if (!ok) fail(setting, `'${name}' cannot prefix tool names: use 1-${MAX_NAME_LENGTH} letters, digits, '_' or '-'.`);
}

function parseLimits(value: unknown, setting: string): CommandLimits | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) fail(setting, 'expected an object.');
  const limits: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!LIMIT_FIELDS.has(key)) fail(`${setting}.${key}`, `unknown limit. Known: ${[...LIMIT_FIELDS].join(', ')}.`);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) fail(`${setting}.${key}`, 'expected an integer ≥ 1.');
    limits[key] = v;
  }
  return limits;
}

function parseMcpServer(entry: unknown, setting: string, env: Env): McpServerConfig {
  if (!isObject(entry)) fail(setting, 'expected an object with "command" (a stdio server) or "url" (a streamable HTTP server).');
  const optional = bool(entry.optional, `${setting}.optional`);
  const common = optional === undefined ? {} : { optional };
  if ('command' in entry && 'url' in entry) fail(setting, 'give either "command" (a stdio server) or "url" (a streamable HTTP server), not both.');
  if ('command' in entry) {
    checkFields(entry, STDIO_FIELDS, setting);
    const command = str(entry.command, `${setting}.command`) ?? fail(`${setting}.command`, 'expected a non-empty string.');
    const server: McpServerConfig & { command: string } = { command, ...common };
    const args = strings(entry.args, `${setting}.args`);
    if (args !== undefined) server.args = args;
    const inlineEnv = stringMap(entry.env, `${setting}.env`);
    const passEnv = strings(entry.passEnv, `${setting}.passEnv`);
    if (inlineEnv !== undefined || passEnv !== undefined) {
      const serverEnv: Record<string, string> = { ...inlineEnv };
      for (const name of passEnv ?? []) serverEnv[name] = fromEnv(name, `${setting}.passEnv`, env);
      server.env = serverEnv;
    }
    const cwd = str(entry.cwd, `${setting}.cwd`);
    if (cwd !== undefined) server.cwd = cwd;
    const readOnlyPaths = strings(entry.readOnlyPaths, `${setting}.readOnlyPaths`);
    if (readOnlyPaths !== undefined) server.readOnlyPaths = readOnlyPaths;
    const network = bool(entry.network, `${setting}.network`);
    if (network !== undefined) server.network = network;
    const limits = parseLimits(entry.limits, `${setting}.limits`);
    if (limits !== undefined) server.limits = limits;
    return server;
  }
  if ('url' in entry) {
    checkFields(entry, HTTP_FIELDS, setting);
    const url = httpUrl(entry.url, `${setting}.url`, 'https://api.example.com/v1') ?? fail(`${setting}.url`, 'expected an http:// or https:// URL.');
    const server: McpServerConfig & { url: string } = { url, ...common };
    const h = headers(entry, setting, env);
    if (h !== undefined) server.headers = h;
    const allowedDomains = strings(entry.allowedDomains, `${setting}.allowedDomains`);
    if (allowedDomains !== undefined) server.allowedDomains = allowedDomains;
    const allowPrivateNetwork = bool(entry.allowPrivateNetwork, `${setting}.allowPrivateNetwork`);
    if (allowPrivateNetwork !== undefined) server.allowPrivateNetwork = allowPrivateNetwork;
    return server;
  }
  fail(setting, 'expected "command" (a stdio server) or "url" (a streamable HTTP server).');
}

function parseAuth(value: unknown, setting: string, env: Env): OpenApiAuth | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) fail(setting, 'expected an object with "type": bearer, header, query or basic.');
  const inline = ['token', 'value', 'password'].find((key) => key in value);
  if (inline !== undefined) {
    fail(`${setting}.${inline}`, `keep secrets out of the config file; put it in an environment variable and name that in "${inline}Env".`);
  }
  const type = value.type;
  switch (type) {
    case 'bearer':
      return { type, token: fromEnv(value.tokenEnv, `${setting}.tokenEnv`, env) };
    case 'header':
    case 'query': {
      const name = str(value.name, `${setting}.name`) ?? fail(`${setting}.name`, `the ${type === 'header' ? 'header' : 'query parameter'} that carries the credential.`);
      return { type, name, value: fromEnv(value.valueEnv, `${setting}.valueEnv`, env) };
    }
    case 'basic': {
      const username = str(value.username, `${setting}.username`) ?? fromEnv(value.usernameEnv, `${setting}.usernameEnv`, env);
      return { type, username, password: fromEnv(value.passwordEnv, `${setting}.passwordEnv`, env) };
    }
    default:
      fail(`${setting}.type`, `expected bearer, header, query or basic, got ${JSON.stringify(type)}.`);
  }
}

function parseOpenApiSource(entry: unknown, setting: string, env: Env): OpenApiSourceConfig {
  if (!isObject(entry)) fail(setting, 'expected an object with "document" (the path of an OpenAPI 3.0 or 3.1 file).');
  checkFields(entry, OPENAPI_FIELDS, setting);
  const document = str(entry.document, `${setting}.document`) ?? fail(`${setting}.document`, 'expected the path of an OpenAPI 3.0 or 3.1 document (JSON or YAML).');
  const source: OpenApiSourceConfig = { document };
  const optional = bool(entry.optional, `${setting}.optional`);
  if (optional !== undefined) source.optional = optional;
  const baseURL = httpUrl(entry.baseURL, `${setting}.baseURL`, 'https://api.example.com/v1');
  if (baseURL !== undefined) source.baseURL = baseURL;
  const operations = strings(entry.operations, `${setting}.operations`);
  if (operations !== undefined) source.operations = operations;
  const auth = parseAuth(entry.auth, `${setting}.auth`, env);
  if (auth !== undefined) source.auth = auth;
  const h = headers(entry, setting, env);
  if (h !== undefined) source.headers = h;
  const allowedDomains = strings(entry.allowedDomains, `${setting}.allowedDomains`);
  if (allowedDomains !== undefined) source.allowedDomains = allowedDomains;
  const allowPrivateNetwork = bool(entry.allowPrivateNetwork, `${setting}.allowPrivateNetwork`);
  if (allowPrivateNetwork !== undefined) source.allowPrivateNetwork = allowPrivateNetwork;
  return source;
}

/** The config file's `mcpServers` and `openApi` sections. */
export interface DynamicToolsSections {
  mcpServers?: Record<string, McpServerConfig>;
  openApi?: Record<string, OpenApiSourceConfig>;
}

/**
 * Validates the `mcpServers` and `openApi` sections, taking the secrets they name
 * (`passEnv`, `headersFromEnv`, `auth.*Env`) from `env`. Entry names become tool-name
 * prefixes, so they must be valid in a tool name and unique across both sections. Throws
 * `ConfigError` naming the first bad setting.
 */
export function parseDynamicTools(raw: { mcpServers?: unknown; openApi?: unknown }, env: Env): DynamicToolsSections {
  const sections: DynamicToolsSections = {};
  const names = new Set<string>();
  if (raw.mcpServers !== undefined) {
    if (!isObject(raw.mcpServers)) fail('mcpServers', 'expected an object of name → server.');
    sections.mcpServers = {};
    for (const [name, entry] of Object.entries(raw.mcpServers)) {
      sourceName(name, `mcpServers.${name}`);
      names.add(name);
      sections.mcpServers[name] = parseMcpServer(entry, `mcpServers.${name}`, env);
    }
  }
  if (raw.openApi !== undefined) {
    if (!isObject(raw.openApi)) fail('openApi', 'expected an object of name → document.');
    sections.openApi = {};
    for (const [name, entry] of Object.entries(raw.openApi)) {
      sourceName(name, `openApi.${name}`);
      if (names.has(name)) fail(`openApi.${name}`, `the name '${name}' is also an MCP server's; names prefix tool names, so give each source its own.`);
      sections.openApi[name] = parseOpenApiSource(entry, `openApi.${name}`, env);
    }
  }
  return sections;
}
