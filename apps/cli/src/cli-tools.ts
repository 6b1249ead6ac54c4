import { basename, extname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { defineTool } from '@toolwire/core';
import type { Tool, ToolSpec } from '@toolwire/core';
import { localCodeInterpreter } from '@toolwire/code-interpreter';
import { shellTool } from '@toolwire/sandbox';
import { createBuiltinTools, loadCustomTool } from '@toolwire/server';
import { CliError, CliUsageError } from './cli-error.ts';
import type { CommandContext } from './context.ts';

/** Asks the user before a shell command runs; resolves true to run it. */
export type ConfirmCommand = (argv: readonly string[]) => Promise<boolean>;

/** Options of `buildCliTools`. */
export interface CliToolsOptions {
  /** The `--tools` list: builtin, shell, code, or paths to tool files. */
  names: readonly string[];
  /** Called before each shell command; absent means run without asking (`--yes`). */
  confirm?: ConfirmCommand;
}

/**
 * The tools `toolwire chat --tools …` offers. Shell commands run in the sandbox under the
 * current directory; custom tool files run in a JavaScript isolate.
 */
export async function buildCliTools(context: CommandContext, options: CliToolsOptions): Promise<ToolSpec[]> {
  const tools: ToolSpec[] = [];
  for (const name of options.names) {
    switch (name) {
      case 'builtin':
        for (const tool of createBuiltinTools({ config: {} })) {
          tools.push(
            defineTool({ name: tool.name, description: tool.description, parameters: tool.inputSchema, execute: tool.execute }),
          );
        }
        break;
      case 'shell':
        tools.push(confirmingShellTool(shellTool({ root: context.cwd }), options.confirm));
        break;
      case 'code':
        tools.push(localCodeInterpreter({ language: 'python', root: context.cwd }));
        break;
      default:
        tools.push(await loadToolFile(context, name));
    }
  }
  return tools;
}

async function loadToolFile(context: CommandContext, file: string): Promise<Tool> {
  if (extname(file) !== '.js') {
    throw new CliUsageError(`Unknown tool set "${file}".`, { hint: 'use builtin, shell, code, or a path to a .js tool file' });
  }
  const path = resolve(context.cwd, file);
  if (!existsSync(path)) throw new CliError(`No such tool file: ${file}`, { hint: 'check the path of the .js tool file' });
  try {
    return await loadCustomTool(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(`Cannot load tool file ${basename(file)}: ${reason}`, {
      hint: 'a tool file exports a definition ({ name, description, parameters }) and a handler',
      cause: error,
    });
  }
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
      if (!(await confirm(argv))) throw new Error('The user declined to run this command.');
      return execute(args, executionContext);
    },
  };
}
