import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { defineTool, executeToolCall, ToolRegistry } from '@toolwire/core';
import type { ToolCall } from '@toolwire/core';
import { extractToolCalls } from '@toolwire/extract';
import { mcpTools } from '@toolwire/mcp';
import { whoami } from '@toolwire/provider-chatgpt-oauth';
import { getSandboxSupport } from '@toolwire/sandbox';
import { createServer } from '@toolwire/server';
import type { ServerConfig, ToolAuditEvent } from '@toolwire/server';
import { bfclToJsonSchema } from '../bfcl-schema.ts';
import { builtinTools } from '../cli-tools.ts';
import type { CommandContext } from '../context.ts';
import { chatGPTAuthOptions } from './login.ts';
import { ollamaFromEnv, openAIConfigured } from '../model-providers.ts';
import { println, style } from '../output.ts';
import type { Output } from '../output.ts';

/** The demo's data folder (shipped with the package: `demo-data/`). */
const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'demo-data');

interface CorpusEntry {
  id: string;
  tools: string[];
  functions: { name: string; description?: string; parameters?: unknown }[];
  text: string;
}

/** Model outputs written for the demo: runnable calls in prose, and an attack. */
const DEMO_OUTPUTS = [
  { label: 'a call in prose', text: 'Let me work that out: calculate(expression="17 * 23 + 4") and I will report back.' },
  { label: 'a malicious call', text: 'calculate(expression="require(\\"child_process\\").execSync(\\"cat /etc/passwd\\")")' },
];

/**
 * `toolwire demo`: the whole pipeline, offline: extraction from real small-model output,
 * validation and sandboxed execution, then the gateway answering through the real
 * `openai` client (a live provider when one is configured, otherwise a labelled replay).
 */
export async function demoCommand(context: CommandContext): Promise<void> {
  const { output } = context;
  const started = Date.now();
  heading(output, 'Toolwire demo', 'tool calling that works the same on every provider');

  const corpus = readFileSync(join(DATA_DIR, 'corpus-sample.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CorpusEntry);

  // 1. Extraction from real model output.
  heading(output, '1. Tool calls in real small-model output', `${corpus.length} outputs of a 0.8B model (BFCL, Apache-2.0), no native tool support`);
  const found: { entry: CorpusEntry; call: ToolCall }[] = [];
  for (const entry of corpus) {
    const calls = extractToolCalls(entry.text, { tools: entry.tools });
    println(output, `${style(output, 'dim', entry.id.padEnd(26))} ${quote(entry.text, 90)}`);
    if (calls.length === 0) println(output, `  ${style(output, 'yellow', '·')} no tool call (nothing is guessed)`);
    for (const call of calls) {
      println(output, `  ${style(output, 'cyan', '→')} ${call.name} ${style(output, 'dim', JSON.stringify(call.arguments))}`);
      found.push({ entry, call });
    }
  }

  // 2. Validation against each tool's definition, then sandboxed execution.
  heading(output, '2. Validate against the tool definitions, run what is runnable', 'arguments checked by JSON Schema; built-in tools run under the sandbox policy');
  let valid = 0;
  for (const { entry, call } of found) {
    const definition = entry.functions.find((f) => f.name === call.name);
    if (definition === undefined) continue;
    const tool = defineTool({ name: call.name, description: definition.description ?? '', parameters: bfclToJsonSchema(definition.parameters) });
    const check = tool.validate(call.arguments);
    if (check.success) valid++;
    else println(output, `  ${style(output, 'red', '✗')} ${call.name}: ${check.message}`);
  }
  println(output, `  ${style(output, 'green', '✓')} ${valid} of ${found.length} calls match their definitions`);

  const builtins = builtinTools();
  const registry = new ToolRegistry();
  for (const tool of builtins) registry.register(tool);
  const runnable: ToolCall[] = [];
  for (const { call } of found) {
    if (call.name === 'get_current_time' && typeof call.arguments.timezone === 'string') {
      runnable.push({ ...call, arguments: { timezone: call.arguments.timezone } });
    }
  }
  for (const sample of DEMO_OUTPUTS) {
    println(output, `${style(output, 'dim', `(${sample.label}, written for this demo)`)} ${quote(sample.text, 90)}`);
    runnable.push(...extractToolCalls(sample.text, { tools: builtins }));
  }
  for (const call of runnable) {
    const result = await executeToolCall(call, { registry, timeoutMs: 5000 });
    const mark = result.success ? style(output, 'green', '✓') : style(output, 'red', '✗ refused');
    println(output, `  ${mark} ${call.name}(${JSON.stringify(call.arguments)}) → ${quote(result.message, 100)}`);
  }

  // 3. An MCP server's tools.
  await mcpStep(output);

  // 4. The gateway, through the official openai client.
  heading(output, '4. The gateway, through the official openai client', 'an OpenAI-compatible server on a free loopback port');
  const live = await findLiveProvider(context);
  const replayPath = join(DATA_DIR, 'replay-conversation.json');
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    providers: { ...live?.providers, replay: { transcripts: { demo: replayPath } } },
  };
  const audits: ToolAuditEvent[] = [];
  const server = createServer({ ...config, onToolAudit: (event) => audits.push(event) });
  const baseURL = await server.listen({ host: '127.0.0.1', port: 0 });
  try {
    const model = live?.model ?? 'replay/demo';
    if (live === undefined) {
      println(output, `  ${style(output, 'yellow', 'REPLAY')} no live provider configured (OPENAI_API_KEY, Ollama, ChatGPT sign-in): replaying a recorded`);
      println(output, `  conversation of a text-only model; extraction, the sandboxed tool and the answer run for real.`);
    } else {
      println(output, `  live provider: ${style(output, 'bold', model)}`);
    }
    println(output, `  gateway at ${baseURL}`);
    // The SDK's own lines would cut into the demo's transcript; they come only when OPENAI_LOG asks (as with createOpenAI).
    const sdkLog = context.env.OPENAI_LOG;
    const client = new OpenAI({ apiKey: 'demo', baseURL, maxRetries: 0, timeout: 60_000, ...(sdkLog === undefined || sdkLog === '' ? { logLevel: 'off' as const } : {}) });
    const question = 'What time is it in Tokyo right now?';
    println(output, `  ${style(output, 'green', 'user')}  ${question}`);
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: question }],
      // The name alone asks for the gateway's own tool; a function with parameters would be the client's.
      tools: [{ type: 'function', function: { name: 'get_current_time' } }],
    });
    for (const audit of audits) {
      const mark = audit.outcome === 'success' ? style(output, 'green', '✓') : style(output, 'red', '✗');
      println(output, `  ${mark} gateway ran ${audit.tool} on the server (${audit.outcome}, ${audit.durationMs.toFixed(1)} ms, audit-logged)`);
    }
    const answer = (completion.choices[0]?.message.content ?? '')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .join('\n        ');
    println(output, `  ${style(output, 'cyan', 'model')} ${answer}`);
    println(output, style(output, 'dim', `  (${completion.id}, finish_reason ${completion.choices[0]?.finish_reason ?? '?'})`));
  } finally {
    await server.close();
  }

  heading(output, `Done in ${((Date.now() - started) / 1000).toFixed(1)}s. Try next:`, '');
  println(output, '  echo \'[get_weather(city="Paris"), get_time(tz="UTC")]\' | toolwire extract - --format table');
  println(output, '  toolwire chat "What is 17 * 23?" --model ollama/qwen2.5:0.5b --tools builtin');
  println(output, '  toolwire chat "Convert 10 miles to km" --model ollama/qwen2.5:0.5b --tools "mcp:node ./my-mcp-server.js"');
  println(output, '  toolwire serve --port 8787   # then point any OpenAI client at http://127.0.0.1:8787/v1');
}

/**
 * Starts the demo's MCP server (stdio, the official SDK) in the shell sandbox, lists its
 * tools as core tools, and calls one: once with good arguments, once with arguments the
 * tool's schema refuses before the server sees them.
 */
async function mcpStep(output: Output): Promise<void> {
  heading(output, "3. Tools from an MCP server", 'a local stdio server (official MCP SDK) started in the shell sandbox; its tools become core tools');
  const here = dirname(fileURLToPath(import.meta.url));
  // dist/commands/demo.js runs dist/demo-mcp-server.js; from source, the .ts beside it.
  const serverFile = join(here, '..', `demo-mcp-server${extname(fileURLToPath(import.meta.url))}`);
  const node = realpathSync(process.execPath);
  const sdk = realpathSync(createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/server/mcp.js'));
  // The server needs its code, the SDK's node_modules and the Node binary, all read-only.
  const modules = sdk.slice(0, sdk.indexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  const support = getSandboxSupport();
  const sandboxed = support.bubblewrap.ok && support.prlimit !== undefined;
  if (!sandboxed) println(output, `  ${style(output, 'yellow', 'NO SANDBOX')} bubblewrap is unavailable here; the demo's own server runs without isolation.`);
  const started = Date.now();
  const server = await mcpTools(
    {
      command: node,
      args: [serverFile],
      readOnlyPaths: [join(here, '..', '..'), modules, dirname(node)],
      isolation: sandboxed ? 'bubblewrap' : 'none',
    },
    { name: 'demo-units' },
  );
  try {
    println(output, `  server started${sandboxed ? ' in bubblewrap' : ''} and listed in ${Date.now() - started} ms:`);
    for (const tool of server.tools) println(output, `  ${style(output, 'cyan', '·')} ${tool.name}  ${style(output, 'dim', tool.description ?? '')}`);
    const registry = new ToolRegistry({ tools: server.tools });
    const calls: ToolCall[] = [
      ...extractToolCalls('A marathon is convert_units(value=42.195, from="km", to="mi") long.', { tools: server.tools }),
      { id: 'mcp-bad', name: 'convert_units', arguments: { value: 1, from: 'km', to: 'parsecs' } },
    ];
    for (const call of calls) {
      const result = await executeToolCall(call, { registry, timeoutMs: 10_000 });
      const mark = result.success ? style(output, 'green', '✓') : style(output, 'red', '✗ refused');
      println(output, `  ${mark} ${call.name}(${JSON.stringify(call.arguments)}) → ${quote(result.message, 100)}`);
    }
  } finally {
    await server.close();
  }
}

interface LiveProvider {
  model: string;
  providers: NonNullable<ServerConfig['providers']>;
}

/** The first provider that is configured and answers quickly, or `undefined`. */
async function findLiveProvider(context: CommandContext): Promise<LiveProvider | undefined> {
  const { env } = context;
  if (openAIConfigured(env)) {
    return {
      model: `openai/${env.TOOLWIRE_DEMO_OPENAI_MODEL ?? 'gpt-4.1-mini'}`,
      providers: {
        openai: {
          ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
          ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
        },
      },
    };
  }
  try {
    const models = await withTimeout(ollamaFromEnv(env).listModels(), 1500);
    const pick = models.find((m) => m.nativeTools) ?? models[0];
    if (pick !== undefined) {
      return { model: `ollama/${pick.name}`, providers: { ollama: env.OLLAMA_HOST ? { host: env.OLLAMA_HOST } : {} } };
    }
  } catch {
    // Ollama is not running: try the next provider.
  }
  try {
    const status = await withTimeout(whoami({ ...chatGPTAuthOptions(context), logger: { warn: () => undefined } }), 1500);
    if (status.signedIn) return { model: 'chatgpt/gpt-5.4', providers: { chatgpt: {} } };
  } catch {
    // No ChatGPT sign-in.
  }
  return undefined;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function heading(output: Output, title: string, subtitle: string): void {
  println(output);
  println(output, style(output, 'bold', title));
  if (subtitle !== '') println(output, style(output, 'dim', subtitle));
}

function quote(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`);
}
