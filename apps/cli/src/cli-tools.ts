import { basename, extname, resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { Tool, ToolSpec } from '@toolwire/core';
import { localCodeInterpreter } from '@toolwire/code-interpreter';
import { createJsSandbox, shellTool } from '@toolwire/sandbox';
import type { JsSandbox } from '@toolwire/sandbox';
import { createBuiltinTools, loadCustomTool } from '@toolwire/server';
import { CliError, CliUsageError } from './cli-error.ts';
import type { CommandContext } from './context.ts';
import { mcpServerFor, parseMcpServerSpec } from './mcp-server-spec.ts';
import { eprintln } from './output.ts';
import { visible } from './terminal-text.ts';

/** Asks the user before a shell command runs; resolves true to run it. `signal` fires when the turn is cancelled. */
export type ConfirmCommand = (argv: readonly string[], signal: AbortSignal) => Promise<boolean>;

/** Options of `buildCliTools`. */
export interface CliToolsOptions {
  /** The `--tools` list: builtin, shell, code, `mcp:<command or URL>`, `openapi:<document>`, or paths to tool files. */
  names: readonly string[];
  /** Called before each shell command; absent means run without asking (`--yes`). */
  confirm?: ConfirmCommand;
}

/**
 * The tools `toolwire chat --tools …` offers. Shell commands run in the sandbox under the
 * current directory; custom tool files run in a JavaScript isolate.
 */
export async function buildCliTools(context: CommandContext, options: CliToolsOptions): Promise<CliTools> {
  const tools: ToolSpec[] = [];
  const disposers: (() => Promise<void>)[] = [];
  let sandbox: JsSandbox | undefined;
  const sharedSandbox = (): JsSandbox => {
    if (sandbox === undefined) {
      const created = createJsSandbox();
      disposers.push(() => created.dispose());
      sandbox = created;
    }
    return sandbox;
  };
  const dispose = async () => {
    await Promise.all(disposers.map((d) => d()));
  };
  try {
    for (const name of options.names) {
      await addToolSet(context, { name, tools, confirm: options.confirm, sharedSandbox, disposers });
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { tools, dispose };
}

/** The tools of a chat session, and how to stop the sandboxes behind them. */
export interface CliTools {
  tools: ToolSpec[];
  dispose: () => Promise<void>;
}

async function addToolSet(
  context: CommandContext,
  set: {
    name: string;
    tools: ToolSpec[];
    confirm: ConfirmCommand | undefined;
    sharedSandbox: () => JsSandbox;
    disposers: (() => Promise<void>)[];
  },
): Promise<void> {
  const { name, tools } = set;
  switch (name) {
    case 'builtin':
      tools.push(...builtinTools());
      break;
    case 'shell':
      tools.push(confirmingShellTool(shellTool({ root: context.cwd }), set.confirm));
      break;
    case 'code': {
      const interpreter = localCodeInterpreter({ language: 'python' });
      set.disposers.push(() => interpreter.dispose());
      tools.push(interpreter);
      break;
    }
    default:
      if (name.startsWith('mcp:')) tools.push(...(await loadMcpTools(context, name.slice(4), set.disposers)));
      else if (name.startsWith('openapi:')) tools.push(...(await loadOpenApiTools(context, name.slice(8))));
      else tools.push(await loadToolFile(context, name, set.sharedSandbox));
  }
}

async function loadMcpTools(context: CommandContext, spec: string, disposers: (() => Promise<void>)[]): Promise<Tool[]> {
  const server = mcpServerFor(parseMcpServerSpec(spec), { cwd: context.cwd, path: context.env.PATH });
  // Loaded only when asked for: most sessions use no MCP server.
  const { mcpTools } = await import('@toolwire/mcp');
  try {
    const set = await mcpTools(server, { onWarning: (message) => eprintln(context.output, visible(message, { multiline: true })) });
    disposers.push(() => set.close());
    return set.tools;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), {
      hint: 'check the command runs on its own; stdio servers run in the sandbox (bubblewrap) with the current directory as their only writable one',
      cause: error,
    });
  }
}

/** The gateway's built-in tools (`get_current_time`, `calculate`): core tools with validation. */
export function builtinTools(): Tool[] {
  return createBuiltinTools({ config: {} });
}

async function loadOpenApiTools(context: CommandContext, file: string): Promise<Tool[]> {
  const path = resolve(context.cwd, file.trim());
  checkRegularFile(path, { missing: `No such OpenAPI document: ${file}`, notFile: `Not a file: ${file}`, hint: 'pass the path of a JSON or YAML OpenAPI 3.0/3.1 document' });
  const { openApiTools } = await import('@toolwire/openapi');
  try {
    // Calls go to the document's servers only; loopback only when every server is on it.
    return await openApiTools(path, { allowPrivateNetwork: await hasLoopbackServer(path), onWarning: (message) => eprintln(context.output, visible(message, { multiline: true })) });
  } catch (error) {
    throw new CliError(`Cannot use ${basename(file)}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'an OpenAPI 3.0 or 3.1 document with an absolute server URL (Swagger 2.0 needs converting first)',
      cause: error,
    });
  }
}

async function hasLoopbackServer(path: string): Promise<boolean> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(path, 'utf8');
  // A cheap look at the servers for JSON documents; YAML ones stay on the public network.
  try {
    const servers = (JSON.parse(text) as { servers?: { url?: unknown }[] }).servers ?? [];
    return servers.length > 0 && servers.every((server) => typeof server.url === 'string' && isLoopbackUrl(server.url));
  } catch {
    return false;
  }
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
  } catch {
    return false;
  }
}

async function loadToolFile(context: CommandContext, file: string, sandbox: () => JsSandbox): Promise<Tool> {
  if (extname(file) !== '.js') {
    throw new CliUsageError(`Unknown tool set "${file}".`, { hint: 'use builtin, shell, code, mcp:<command or URL>, openapi:<document>, or a path to a .js tool file' });
  }
  const path = resolve(context.cwd, file);
  checkRegularFile(path, { missing: `No such tool file: ${file}`, notFile: `Not a file: ${file}`, hint: 'check the path of the .js tool file' });
  try {
    return await loadCustomTool(path, { sandbox: sandbox() });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(`Cannot load tool file ${basename(file)}: ${reason}`, {
      hint: 'a tool file exports `definition` ({ name, description, parameters }) and `handler` (a function of the arguments)',
      cause: error,
    });
  }
}

/**
 * A path given with `--tools` must be a regular file: reading a FIFO waits for a writer
 * that may never come, and a directory or device is not a document.
 */
function checkRegularFile(path: string, messages: { missing: string; notFile: string; hint: string }): void {
  let info;
  try {
    info = statSync(path);
  } catch {
    throw new CliError(messages.missing, { hint: messages.hint });
  }
  if (!info.isFile()) throw new CliError(messages.notFile, { hint: messages.hint });
}

function confirmingShellTool<TArgs extends { command: readonly string[] }, TResult>(
  tool: Tool<TArgs, TResult>,
  confirm: ConfirmCommand | undefined,
): Tool<TArgs, TResult> {
  const execute = tool.execute;
  if (confirm === undefined || execute === undefined) return tool;
  return {
    ...tool,
    execute: async (args, executionContext) => {
      const argv = args.command;
      if (!(await confirm(argv, executionContext.signal))) throw new Error('The user declined to run this command.');
      // A "y" typed after the turn was cancelled approves nothing.
      executionContext.signal.throwIfAborted();
      return execute(args, executionContext);
    },
  };
}
