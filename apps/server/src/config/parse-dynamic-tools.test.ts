import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.ts';
import { parseConfigFile } from './parse-config-file.ts';
import { parseDynamicTools } from './parse-dynamic-tools.ts';

const env = { GITHUB_TOKEN: 'ghp-secret', PETS_KEY: 'pets-secret', MCP_AUTH: 'Bearer mcp-secret' };

function problemOf(raw: { mcpServers?: unknown; openApi?: unknown }, environment: Record<string, string> = env): { setting: string; message: string } {
  try {
    parseDynamicTools(raw, environment);
  } catch (error) {
    if (ConfigError.isInstance(error)) return { setting: error.setting, message: error.message };
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseDynamicTools', () => {
  it('reads a stdio server, taking passEnv variables from the environment', () => {
    const parsed = parseDynamicTools(
      {
        mcpServers: {
          github: {
            command: '/usr/bin/node',
            args: ['/srv/mcp/github/index.js'],
            env: { LOG_LEVEL: 'warn' },
            passEnv: ['GITHUB_TOKEN'],
            readOnlyPaths: ['/srv/mcp/github'],
            network: true,
            limits: { memoryMb: 1024, totalMemoryMb: 1536, processes: 32 },
            optional: true,
          },
        },
      },
      env,
    );
    expect(parsed.mcpServers?.github).toEqual({
      command: '/usr/bin/node',
      args: ['/srv/mcp/github/index.js'],
      env: { LOG_LEVEL: 'warn', GITHUB_TOKEN: 'ghp-secret' },
      readOnlyPaths: ['/srv/mcp/github'],
      network: true,
      limits: { memoryMb: 1024, totalMemoryMb: 1536, processes: 32 },
      optional: true,
    });
  });

  it('reads an HTTP server, its secret headers from headersFromEnv', () => {
    const parsed = parseDynamicTools({ mcpServers: { docs: { url: 'https://mcp.example.com/mcp', headers: { 'x-team': 'a' }, headersFromEnv: { authorization: 'MCP_AUTH' }, allowedDomains: ['mcp.example.com'] } } }, env);
    expect(parsed.mcpServers?.docs).toEqual({ url: 'https://mcp.example.com/mcp', headers: { 'x-team': 'a', authorization: 'Bearer mcp-secret' }, allowedDomains: ['mcp.example.com'] });
  });

  it('reads an OpenAPI document with auth from the environment', () => {
    const parsed = parseDynamicTools(
      { openApi: { pets: { document: './pets.yaml', baseURL: 'https://pets.example.com/v1', operations: ['getPet'], auth: { type: 'header', name: 'x-api-key', valueEnv: 'PETS_KEY' } } } },
      env,
    );
    expect(parsed.openApi?.pets).toEqual({
      document: './pets.yaml',
      baseURL: 'https://pets.example.com/v1',
      operations: ['getPet'],
      auth: { type: 'header', name: 'x-api-key', value: 'pets-secret' },
    });
    expect(parseDynamicTools({ openApi: { a: { document: 'a.json', auth: { type: 'bearer', tokenEnv: 'GITHUB_TOKEN' } } } }, env).openApi?.a?.auth).toEqual({ type: 'bearer', token: 'ghp-secret' });
    expect(parseDynamicTools({ openApi: { a: { document: 'a.json', auth: { type: 'basic', username: 'bot', passwordEnv: 'PETS_KEY' } } } }, env).openApi?.a?.auth).toEqual({
      type: 'basic',
      username: 'bot',
      password: 'pets-secret',
    });
  });

  it('refuses secrets written into the file, saying where they go instead, without repeating them', () => {
    const token = problemOf({ openApi: { pets: { document: 'p.json', auth: { type: 'bearer', token: 'sk-inline' } } } });
    expect(token.setting).toBe('openApi.pets.auth.token');
    expect(token.message).toContain('tokenEnv');
    expect(token.message).not.toContain('sk-inline');
    const header = problemOf({ mcpServers: { docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer inline' } } } });
    expect(header.setting).toBe('mcpServers.docs.headers.Authorization');
    expect(header.message).toContain('headersFromEnv');
    expect(header.message).not.toContain('Bearer inline');
  });

  it('names an environment variable that is not set', () => {
    const problem = problemOf({ mcpServers: { github: { command: 'node', passEnv: ['NOT_SET'] } } });
    expect(problem.setting).toBe('mcpServers.github.passEnv');
    expect(problem.message).toContain('NOT_SET is not set');
  });

  it('refuses entries that are neither stdio nor HTTP, or both', () => {
    expect(problemOf({ mcpServers: { x: { args: ['a'] } } }).setting).toBe('mcpServers.x');
    expect(problemOf({ mcpServers: { x: { command: 'node', url: 'https://a.example' } } }).setting).toBe('mcpServers.x');
    expect(problemOf({ mcpServers: { x: { url: 'ftp://a.example' } } }).setting).toBe('mcpServers.x.url');
    expect(problemOf({ mcpServers: { x: { command: 'node', headers: {} } } }).setting).toBe('mcpServers.x.headers');
    expect(problemOf({ mcpServers: { x: { command: 'node', limits: { memoryMb: 0 } } } }).setting).toBe('mcpServers.x.limits.memoryMb');
    expect(problemOf({ mcpServers: { x: { command: 'node', optional: 'yes' } } }).setting).toBe('mcpServers.x.optional');
  });

  it('refuses names that cannot prefix a tool name, and one name used by an MCP server and a document', () => {
    expect(problemOf({ mcpServers: { 'git hub': { command: 'node' } } }).setting).toBe('mcpServers.git hub');
    expect(problemOf({ mcpServers: { gh: { command: 'node' } }, openApi: { gh: { document: 'a.json' } } }).setting).toBe('openApi.gh');
  });

  it('refuses an OpenAPI entry without a document or with an unknown auth type', () => {
    expect(problemOf({ openApi: { a: { baseURL: 'https://a.example' } } }).setting).toBe('openApi.a.document');
    expect(problemOf({ openApi: { a: { document: 'a.json', auth: { type: 'oauth2' } } } }).setting).toBe('openApi.a.auth.type');
  });

  it('is part of the config file', () => {
    const config = parseConfigFile({ mcpServers: { fs: { command: 'node' } }, openApi: { pets: { document: 'pets.json' } } });
    expect(config.mcpServers).toEqual({ fs: { command: 'node' } });
    expect(config.openApi).toEqual({ pets: { document: 'pets.json' } });
  });
});
