import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { McpHttpServer, McpStdioServer } from '@toolwire/mcp';
import { CliUsageError } from './cli-error.ts';

/** What follows `mcp:` in `--tools`: a URL, or a command line split into an argv. */
export type McpServerSpec = { type: 'url'; url: string } | { type: 'command'; argv: string[] };

/**
 * Reads the text after `mcp:`: an http(s) URL, or a command line split at whitespace,
 * with '…' and "…" quoting (no shell: no variables, globs or operators). A linear scan.
 */
export function parseMcpServerSpec(text: string): McpServerSpec {
  const trimmed = text.trim();
  if (trimmed.startsWith('http://') || trimmed.startsWith('https://')) return { type: 'url', url: trimmed };
  const argv: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (const char of trimmed) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === ' ' || char === '\t') {
      if (inWord) argv.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new CliUsageError(`Unclosed ${quote} in "mcp:${text}".`, { hint: 'close the quote, e.g. mcp:"node server.js"' });
  if (inWord) argv.push(current);
  if (argv.length === 0) throw new CliUsageError('"mcp:" needs a command or a URL.', { hint: 'e.g. --tools "mcp:node ./server.js" or --tools mcp:http://127.0.0.1:3000/mcp' });
  return { type: 'command', argv };
}

const SYSTEM_DIRS = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/lib32/'];
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The server to start for a spec. A command runs in the shell sandbox with the current
 * directory as its one writable (and readable) directory. Bound read-only besides: a program
 * found outside the system directories (`~/.nvm/…/node`), so the sandbox can run it, and
 * every `node_modules` above the current directory, where Node resolves a server's packages
 * (pnpm's store included). A URL on loopback is allowed to reach loopback.
 */
export function mcpServerFor(spec: McpServerSpec, options: { cwd: string; path: string | undefined }): McpStdioServer | McpHttpServer {
  switch (spec.type) {
    case 'url': {
      return { url: spec.url, allowPrivateNetwork: LOOPBACK_HOSTS.has(new URL(spec.url).hostname) };
    }
    case 'command': {
      const [program = '', ...args] = spec.argv;
      const found = findProgram(program, options);
      const readOnlyPaths = ancestorNodeModules(options.cwd);
      if (found !== undefined && !SYSTEM_DIRS.some((dir) => found.startsWith(dir))) readOnlyPaths.push(dirname(found));
      const server: McpStdioServer = { command: found ?? program, args, cwd: options.cwd };
      if (readOnlyPaths.length > 0) server.readOnlyPaths = readOnlyPaths;
      return server;
    }
    default: {
      const unknown: never = spec;
      throw new Error(`unknown MCP server spec ${JSON.stringify(unknown)}`);
    }
  }
}

function ancestorNodeModules(cwd: string): string[] {
  const found: string[] = [];
  for (let dir = dirname(cwd); ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    if (existsSync(modules)) found.push(realpathSync(modules));
    if (dirname(dir) === dir) return found;
  }
}

function findProgram(program: string, options: { cwd: string; path: string | undefined }): string | undefined {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : resolve(options.cwd, program)]
    : (options.path ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // Not here.
    }
  }
  return undefined;
}
