import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Tool } from '@toolwire/core';
import { availableParallelism } from 'node:os';
import { createJsSandbox, sandboxedTool } from '@toolwire/sandbox';
import type { AuditHandler, JsSandbox } from '@toolwire/sandbox';
import { ConfigError } from '../config/config-error.ts';
import { toSandboxScript } from './custom-tool-source.ts';

/** Options of `loadCustomTool`. */
export interface LoadCustomToolOptions {
  /** The sandbox to run in (default: a new one; call its `dispose()` when done). */
  sandbox?: JsSandbox;
  /** Domains the handler's `fetch` may reach (for a new sandbox). */
  allowedDomains?: readonly string[];
  /** Per-run limit in ms (for a new sandbox). */
  timeoutMs?: number;
  onAudit?: AuditHandler;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Loads one custom tool file, a module that exports `definition` (`{ name, description,
 * parameters }`) and `handler` (a function of the arguments), as a core `Tool` whose
 * handler runs in the JavaScript sandbox (isolated-vm, no host objects, `fetch` limited to
 * the allowed domains). The file is never evaluated in this process: even its definition is
 * read by running it in the sandbox.
 * @example const weather = await loadCustomTool('./tools/weather.js', { allowedDomains: ['api.example.com'] });
 */
export async function loadCustomTool(path: string, options: LoadCustomToolOptions = {}): Promise<Tool> {
  const script = toSandboxScript(await readFile(path, 'utf8'));
  const sandbox =
    options.sandbox ??
    createJsSandbox({
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      allowedDomains: [...(options.allowedDomains ?? [])],
      ...(options.onAudit === undefined ? {} : { onAudit: options.onAudit }),
      auditTool: basename(path),
    });
  const read = await sandbox.run(`${script}\n;definition`);
  if (!read.ok) throw new Error(`its definition could not be read in the sandbox: ${read.error.message}`);
  const definition = read.value;
  if (!isObject(definition) || typeof definition.name !== 'string' || !isObject(definition.parameters)) {
    throw new Error("'definition' must be { name: string, description: string, parameters: { type: 'object', … } }.");
  }
  return sandboxedTool({
    name: definition.name,
    description: typeof definition.description === 'string' ? definition.description : '',
    parameters: definition.parameters,
    // One expression that evaluates the file's declarations and yields its handler.
    source: `(() => {\n${script}\n;return handler;\n})()`,
    sandbox,
    ...(options.onAudit === undefined ? {} : { onAudit: options.onAudit }),
  });
}

/** Options of `loadCustomTools`. */
export interface LoadCustomToolsOptions {
  /** The directory; every `*.js` file in it is one tool. */
  path: string;
  /** Domains the handlers' `fetch` may reach. */
  allowedDomains: readonly string[];
  /** Per-run CPU/wall limit in the sandbox. */
  timeoutMs: number;
  onAudit: AuditHandler;
}

/** Worker processes of the custom tools' sandbox: as many as cores, 1 to 4. */
const POOL_SIZE = Math.max(1, Math.min(4, availableParallelism()));

/** The loaded tools and the sandbox they share. */
export interface CustomTools {
  tools: Tool[];
  /** Worker processes of the shared sandbox (0 when no tool was loaded). */
  poolSize: number;
  /** Stops the sandbox's worker processes. */
  dispose(): Promise<void>;
}

/** Loads every tool file of `customToolsPath` into one shared sandbox. */
export async function loadCustomTools(options: LoadCustomToolsOptions): Promise<CustomTools> {
  let entries: string[];
  try {
    entries = await readdir(options.path);
  } catch (error) {
    throw new ConfigError({ setting: 'tools.customToolsPath', message: `cannot read ${options.path}: ${(error as Error).message}` });
  }
  const files = entries.filter((name) => name.endsWith('.js')).sort();
  if (files.length === 0) return { tools: [], poolSize: 0, dispose: () => Promise.resolve() };
  const sandbox = createJsSandbox({ timeoutMs: options.timeoutMs, allowedDomains: [...options.allowedDomains], onAudit: options.onAudit, auditTool: 'custom-tool', poolSize: POOL_SIZE });
  const tools: Tool[] = [];
  try {
    for (const file of files) {
      try {
        tools.push(await loadCustomTool(join(options.path, file), { sandbox, onAudit: options.onAudit }));
      } catch (error) {
        throw new ConfigError({ setting: `tools.customToolsPath/${file}`, message: (error as Error).message });
      }
    }
  } catch (error) {
    await sandbox.dispose();
    throw error;
  }
  return { tools, poolSize: POOL_SIZE, dispose: () => sandbox.dispose() };
}
