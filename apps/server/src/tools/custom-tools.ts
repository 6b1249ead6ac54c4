import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tool } from '@toolwire/core';
import { createJsSandbox, sandboxedTool } from '@toolwire/sandbox';
import type { AuditHandler, JsSandbox } from '@toolwire/sandbox';
import { ConfigError } from '../config/config-error.ts';
import type { ServerTool } from './server-tool.ts';

/** Options of `loadCustomTools`. */
export interface LoadCustomToolsOptions {
  /** The directory: `<name>.json` (definition) beside `<name>.js` (handler source) per tool. */
  path: string;
  /** Domains the handlers' `fetch` may reach. */
  allowedDomains: readonly string[];
  /** Per-run CPU/wall limit in the sandbox. */
  timeoutMs: number;
  onAudit: AuditHandler;
}

/** The loaded tools and the sandbox they share. */
export interface CustomTools {
  tools: ServerTool[];
  /** Stops the sandbox's worker processes. */
  dispose(): Promise<void>;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A core `Tool` (validated arguments, sandboxed execute) as a server tool. */
function toServerTool(tool: Tool): ServerTool {
  const execute = tool.execute;
  if (execute === undefined) throw new Error(`custom tool ${tool.name} has no handler`);
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    execute(args, context) {
      const checked = tool.validate(args);
      if (!checked.success) return Promise.reject(new Error(checked.message));
      return Promise.resolve(execute(checked.value, context));
    },
  };
}

/**
 * Loads the custom tools of a directory. Each tool is two files: `weather.json` with
 * `{ "name", "description", "parameters" }` and `weather.js` holding the handler as one
 * function expression (`async ({ city }) => { … }`). Handlers run in the JavaScript
 * sandbox (isolated-vm, no host objects, `fetch` limited to `allowedDomains`); the host
 * never evaluates them.
 */
export async function loadCustomTools(options: LoadCustomToolsOptions): Promise<CustomTools> {
  let entries: string[];
  try {
    entries = await readdir(options.path);
  } catch (error) {
    throw new ConfigError({ setting: 'tools.customToolsPath', message: `cannot read ${options.path}: ${(error as Error).message}` });
  }
  const definitions = entries.filter((name) => name.endsWith('.json')).sort();
  if (definitions.length === 0) return { tools: [], dispose: () => Promise.resolve() };

  let sandbox: JsSandbox | undefined;
  const shared = (): JsSandbox =>
    (sandbox ??= createJsSandbox({ timeoutMs: options.timeoutMs, allowedDomains: [...options.allowedDomains], onAudit: options.onAudit, auditTool: 'custom-tool' }));
  const tools: ServerTool[] = [];
  for (const file of definitions) {
    const setting = `tools.customToolsPath/${file}`;
    let definition: unknown;
    try {
      definition = JSON.parse(await readFile(join(options.path, file), 'utf8'));
    } catch (error) {
      throw new ConfigError({ setting, message: `not valid JSON: ${(error as Error).message}` });
    }
    if (!isObject(definition) || typeof definition.name !== 'string' || !isObject(definition.parameters)) {
      throw new ConfigError({ setting, message: 'expected { "name": string, "description": string, "parameters": { "type": "object", … } }.' });
    }
    const handlerFile = `${file.slice(0, -'.json'.length)}.js`;
    let source: string;
    try {
      source = await readFile(join(options.path, handlerFile), 'utf8');
    } catch {
      throw new ConfigError({ setting, message: `the handler ${handlerFile} is missing beside it.` });
    }
    const tool = sandboxedTool({
      name: definition.name,
      description: typeof definition.description === 'string' ? definition.description : '',
      parameters: definition.parameters,
      source,
      sandbox: shared(),
      onAudit: options.onAudit,
    });
    tools.push(toServerTool(tool));
  }
  return { tools, dispose: () => sandbox?.dispose() ?? Promise.resolve() };
}
