import { Command, InvalidArgumentError, Option } from 'commander';
import { CliUsageError } from './cli-error.ts';
import type { CommandContext } from './context.ts';

/** The CLI's version, from its package.json. */
export const VERSION = '0.1.0';

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number (0 for no bound)');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

/**
 * Builds the `toolwire` command. Actions load their module lazily so `--help` and quick
 * commands start fast.
 */
export function createProgram(context: CommandContext): Command {
  const program = new Command('toolwire')
    .description('Tool calling that works the same on every LLM provider.')
    .version(VERSION, '-v, --version', 'print the version')
    .option('--debug', 'print stack traces for errors')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => context.output.out.write(s),
      writeErr: (s) => context.output.err.write(s),
      outputError: (s, write) => write(s),
    })
    .addHelpText(
      'after',
      `
Examples:
  $ toolwire demo                          walk through the whole pipeline offline
  $ toolwire chat "What time is it in Tokyo?" --model ollama/qwen2.5:0.5b --tools builtin
  $ echo 'search(query="x")' | toolwire extract -
  $ toolwire serve --port 8787`,
    )
    .exitOverride();

  program
    .command('chat')
    .description('chat with a model, running its tool calls (interactive without a prompt)')
    .argument('[prompt]', 'one prompt to answer; omit for an interactive session')
    .requiredOption('-m, --model <provider/model>', 'the model, e.g. openai/gpt-4.1-mini, ollama/llama3.2:1b, chatgpt/gpt-5.4')
    .option('-t, --tools <list>', 'comma-separated: builtin, shell, code, mcp:<command or URL> (an MCP server), openapi:<document>, or paths to tool files (.js)')
    .option('-s, --system <text>', 'a system prompt')
    .option('--max-steps <n>', 'most model calls per turn', positiveInteger, 10)
    .option('--json', 'print one JSON event per line')
    .option('-y, --yes', 'run shell commands without asking')
    .addHelpText('after', '\nExample:\n  $ toolwire chat "List the files here" --model openai/gpt-4.1-mini --tools shell')
    .action(async (prompt: string | undefined, options: ChatOptions) => {
      const { chatCommand } = await import('./commands/chat.ts');
      await chatCommand(context, prompt, options);
    });

  program
    .command('extract')
    .description('find the tool calls in a text (a file, or - for stdin)')
    .argument('[file]', 'the text file; - or nothing reads stdin', '-')
    .option('-t, --tools <names>', 'comma-separated allow-list of tool names')
    .option('--stream', 'parse incrementally, printing events as the text arrives')
    .option('--max-call-chars <n>', 'give up a call, JSON object or call block still open after n characters (default 4194304, 4 Mi; 0 for no bound)', wholeNumber)
    .addOption(new Option('-f, --format <format>', 'output format').choices(['json', 'table']).default('json'))
    .addHelpText('after', '\nExample:\n  $ echo \'[get_weather(city="Paris")]\' | toolwire extract - --format table')
    .action(async (file: string, options: ExtractOptions) => {
      const { extractCommand } = await import('./commands/extract.ts');
      await extractCommand(context, file, options);
    });

  program
    .command('serve')
    .description('run the OpenAI-compatible gateway')
    .option('-p, --port <port>', 'port to listen on (env PORT)', port)
    .option('--host <host>', 'address to bind (env HOST, default 127.0.0.1)')
    .option('-c, --config <file>', 'a JSON config file')
    .addHelpText('after', '\nExample:\n  $ toolwire serve --port 8787 --config toolwire.json')
    .action(async (options: ServeOptions) => {
      const { serveCommand } = await import('./commands/serve.ts');
      await serveCommand(context, options);
    });

  program
    .command('login')
    .description('sign in to a provider (chatgpt)')
    .argument('<provider>', 'the provider: chatgpt')
    .option('--device', 'use the device-code flow (for machines without a browser)')
    .option('--workspace <id>', 'only accept a sign-in to this ChatGPT workspace (account id)')
    .addHelpText('after', '\nExample:\n  $ toolwire login chatgpt --device')
    .action(async (provider: string, options: { device?: boolean; workspace?: string }) => {
      const { loginCommand } = await import('./commands/login.ts');
      await loginCommand(context, provider, options);
    });

  program
    .command('logout')
    .description('sign out of a provider and revoke its tokens')
    .argument('<provider>', 'the provider: chatgpt')
    .addHelpText('after', '\nExample:\n  $ toolwire logout chatgpt')
    .action(async (provider: string) => {
      const { logoutCommand } = await import('./commands/login.ts');
      await logoutCommand(context, provider);
    });

  program
    .command('whoami')
    .description('show who you are signed in as (no tokens are printed)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ toolwire whoami')
    .action(async (options: { json?: boolean }) => {
      const { whoamiCommand } = await import('./commands/login.ts');
      await whoamiCommand(context, options);
    });

  program
    .command('models')
    .description('list the models of every configured provider, marked native or text tools')
    .option('--json', 'print JSON lines')
    .addHelpText('after', '\nExample:\n  $ OLLAMA_HOST=http://127.0.0.1:11434 toolwire models')
    .action(async (options: { json?: boolean }) => {
      const { modelsCommand } = await import('./commands/models.ts');
      await modelsCommand(context, options);
    });

  program
    .command('demo')
    .description('walk through extraction, sandboxed tools and the gateway, offline')
    .addHelpText('after', '\nExample:\n  $ toolwire demo')
    .action(async () => {
      const { demoCommand } = await import('./commands/demo.ts');
      await demoCommand(context);
    });

  return program;
}

/** Options of `toolwire chat`. */
export interface ChatOptions {
  model: string;
  tools?: string;
  system?: string;
  maxSteps: number;
  json?: boolean;
  yes?: boolean;
}

/** Options of `toolwire extract`. */
export interface ExtractOptions {
  tools?: string;
  stream?: boolean;
  /** `--max-call-chars`: extract's `maxCallChars`. */
  maxCallChars?: number;
  format: 'json' | 'table';
}

/** Options of `toolwire serve`. */
export interface ServeOptions {
  port?: number;
  host?: string;
  config?: string;
}

/** Splits a comma-separated option into trimmed, non-empty parts. */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Parses `provider/model`, naming the known providers when the prefix is wrong. */
export function parseModelRef(ref: string, known: readonly string[]): { provider: string; modelId: string } {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) {
    throw new CliUsageError(`"${ref}" is not a model reference.`, {
      hint: `write provider/model, e.g. ${known.map((p) => `${p}/…`).join(', ')}`,
    });
  }
  const provider = ref.slice(0, slash);
  if (!known.includes(provider)) {
    throw new CliUsageError(`Unknown provider "${provider}".`, { hint: `known providers: ${known.join(', ')}` });
  }
  return { provider, modelId: ref.slice(slash + 1) };
}
