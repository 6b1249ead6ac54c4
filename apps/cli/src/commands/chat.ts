import { createInterface } from 'node:readline/promises';
import type { Interface } from 'node:readline/promises';
import { runToolsStream } from '@toolwire/core';
import type { ChatModel, ChatStreamEvent, Message, ToolSpec } from '@toolwire/core';
import { CliError, ReportedError } from '../cli-error.ts';
import { startChatTelemetry, withTurnSpan } from '../chat-telemetry.ts';
import { buildCliTools } from '../cli-tools.ts';
import type { ConfirmCommand } from '../cli-tools.ts';
import type { CommandContext } from '../context.ts';
import { resolveChatModel } from '../model-providers.ts';
import { eprintln, println, startSpinner, style } from '../output.ts';
import type { Output } from '../output.ts';
import type { ChatOptions } from '../program.ts';
import { splitList } from '../program.ts';
import { MAX_TEXT_INPUT_CHARS, readAllText } from '../read-input.ts';
import { createVisibleStream, quoteArgument, visible } from '../terminal-text.ts';

/** At the end of `chat`, how long the last spans and metrics may take to reach the collector. */
const CHAT_TELEMETRY_FLUSH_MS = 3_000;

/** `toolwire chat`: one prompt, or an interactive session without one. */
export async function chatCommand(context: CommandContext, prompt: string | undefined, options: ChatOptions): Promise<void> {
  const model = resolveChatModel(context, options.model);
  const interactive = prompt === undefined;
  if (interactive && context.stdin.isTTY !== true && options.json !== true) {
    // Piped input without a prompt: read it as the prompt.
    context.stdin.setEncoding('utf8');
    const text = await readAllText(context.stdin as AsyncIterable<string>, {
      maxChars: MAX_TEXT_INPUT_CHARS,
      what: 'stdin',
      hint: 'a prompt that long does not fit a model; pass a shorter one',
    });
    if (text.trim() === '') throw new CliError('No prompt given.', { hint: 'pass a prompt: toolwire chat "…" --model …' });
    return chatCommand(context, text.trim(), options);
  }

  // Line editing draws on stderr with escape sequences: only when stderr is that terminal
  // (`chat 2>log` would otherwise fill the log with them and hide the prompt and the typing).
  const rl = interactive ? createInterface({ input: context.stdin, output: context.output.err, terminal: context.output.interactive, historySize: 500 }) : undefined;
  // One prompt: Ctrl-C (at a [y/N] prompt too) cancels the turn and ends the command with 130.
  const cancel = new AbortController();
  const confirm: ConfirmCommand | undefined =
    options.yes === true ? undefined : (argv, signal) => askToRun(context, { rl, argv, signal, cancel: () => cancel.abort(new Error('cancelled')) });
  const { tools, dispose } = await buildCliTools(context, { names: splitList(options.tools), ...(confirm ? { confirm } : {}) });
  const messages: Message[] = options.system !== undefined ? [{ role: 'system', content: options.system }] : [];
  const turn: TurnSettings = { model, tools, maxSteps: options.maxSteps, json: options.json === true };
  const telemetry = startChatTelemetry(context);
  try {
    if (rl === undefined) {
      messages.push({ role: 'user', content: prompt ?? '' });
      await runCancellableTurn(context, turn, messages, cancel);
      return;
    }
    await interactiveSession(context, rl, turn, messages);
  } finally {
    await dispose();
    // What is still buffered goes to the collector; a collector that is down does not hold the prompt.
    await telemetry?.shutdown({ timeoutMs: CHAT_TELEMETRY_FLUSH_MS });
  }
}

interface TurnSettings {
  model: ChatModel;
  tools: ToolSpec[];
  maxSteps: number;
  json: boolean;
}

async function interactiveSession(context: CommandContext, rl: Interface, turn: TurnSettings, messages: Message[]): Promise<void> {
  const { output } = context;
  eprintln(output, style(output, 'dim', `${turn.model.provider}/${turn.model.modelId} · /tools lists tools · /exit quits · Ctrl-C cancels a turn`));
  let running: AbortController | undefined;
  // Ctrl-C during a turn cancels that turn; at the prompt it ends the session.
  const onInterrupt = () => {
    if (running) running.abort(new Error('cancelled'));
    else rl.close();
  };
  rl.on('SIGINT', onInterrupt);
  // Without line editing the terminal is not in raw mode: Ctrl-C arrives as a signal.
  const signalled = !rl.terminal;
  if (signalled) process.on('SIGINT', onInterrupt);
  let closed = false;
  rl.on('close', () => {
    closed = true;
  });
  try {
    while (!closed) {
      let line: string;
      try {
        line = (await rl.question(style(output, 'green', '> '))).trim();
      } catch {
        break; // readline closed (Ctrl-D or Ctrl-C at the prompt)
      }
      if (line === '') continue;
      if (line === '/exit' || line === '/quit') break;
      if (line === '/tools') {
        if (turn.tools.length === 0) eprintln(output, 'no tools (start with --tools builtin,shell,code)');
        for (const tool of turn.tools) eprintln(output, `${style(output, 'cyan', visible(tool.name))}${'description' in tool && tool.description ? `  ${visible(tool.description, { multiline: true })}` : ''}`);
        continue;
      }
      messages.push({ role: 'user', content: line });
      running = new AbortController();
      try {
        const added = await runTurn(context, turn, messages, running.signal);
        messages.push(...added);
      } catch (error) {
        if (running.signal.aborted) {
          messages.pop();
          eprintln(output, style(output, 'yellow', '\n(turn cancelled)'));
        } else {
          if (!ReportedError.isInstance(error)) eprintln(output, `${style(output, 'red', 'error:')} ${visible(error instanceof Error ? error.message : String(error), { multiline: true })}`);
          messages.pop();
        }
      } finally {
        running = undefined;
      }
    }
  } finally {
    if (signalled) process.off('SIGINT', onInterrupt);
    rl.close();
  }
}

/** Exit code of a command the user interrupted (128 + SIGINT). */
const INTERRUPTED_EXIT_CODE = 130;

/**
 * The one turn of `chat "prompt"`: the first Ctrl-C cancels it (the tools and MCP servers
 * are stopped, the telemetry flushed), a second one ends the process at once.
 */
async function runCancellableTurn(context: CommandContext, turn: TurnSettings, messages: Message[], cancel: AbortController): Promise<void> {
  const onSigint = () => {
    if (cancel.signal.aborted) process.exit(INTERRUPTED_EXIT_CODE);
    cancel.abort(new Error('cancelled'));
  };
  process.on('SIGINT', onSigint);
  try {
    await runTurn(context, turn, messages, cancel.signal);
  } catch (error) {
    if (!cancel.signal.aborted) throw error;
    eprintln(context.output, style(context.output, 'yellow', '\n(cancelled)'));
    context.exitCode = INTERRUPTED_EXIT_CODE;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Runs one user turn through the tool loop, printing as it streams; returns the messages it added. */
function runTurn(context: CommandContext, turn: TurnSettings, messages: Message[], signal?: AbortSignal): Promise<Message[]> {
  return withTurnSpan(turn.model, () => streamTurn(context, turn, messages, signal));
}

async function streamTurn(context: CommandContext, turn: TurnSettings, messages: Message[], signal?: AbortSignal): Promise<Message[]> {
  const { output } = context;
  const run = runToolsStream({
    model: turn.model,
    messages,
    tools: turn.tools,
    maxSteps: turn.maxSteps,
    ...(signal ? { signal } : {}),
  });
  let spinner = turn.json ? undefined : startSpinner(output, 'thinking');
  const toolStarted = new Map<string, number>();
  let atLineStart = true;
  // Model text may carry escape sequences meant for the terminal; they are shown, not obeyed.
  const text = createVisibleStream();
  // The error of an `error` event, printed when it came: the run's result then fails with it.
  let shown: Error | undefined;
  try {
    for await (const event of run) {
      if (event.type === 'error') shown = event.error;
      if (turn.json) {
        println(output, JSON.stringify(toJsonEvent(event)));
        continue;
      }
      spinner?.stop();
      spinner = undefined;
      atLineStart = printEvent(output, event, { toolStarted, text }, atLineStart);
      if (event.type === 'tool-call' && !event.toolCall.providerExecuted) {
        spinner = startSpinner(output, `running ${visible(event.toolCall.name)}`);
      }
    }
    const result = await run.result.catch((error: unknown) => {
      throw error === shown && shown !== undefined ? new ReportedError(shown) : error;
    });
    if (!turn.json) {
      output.out.write(text.end());
      if (!atLineStart) println(output);
      if (result.stoppedBy === 'max-steps') {
        eprintln(output, style(output, 'yellow', `stopped after ${turn.maxSteps} steps without a final answer (raise --max-steps)`));
      }
    }
    return result.newMessages;
  } finally {
    spinner?.stop();
  }
}

interface PrintState {
  toolStarted: Map<string, number>;
  text: ReturnType<typeof createVisibleStream>;
}

function printEvent(output: Output, event: ChatStreamEvent, state: PrintState, atLineStart: boolean): boolean {
  const { toolStarted } = state;
  switch (event.type) {
    case 'text-delta':
      output.out.write(state.text.push(event.delta));
      return event.delta.endsWith('\n') ? true : event.delta === '' ? atLineStart : false;
    case 'tool-call': {
      const call = event.toolCall;
      toolStarted.set(call.id, Date.now());
      if (!atLineStart) println(output);
      eprintln(output, `${style(output, 'cyan', '→')} ${style(output, 'bold', visible(call.name))}(${truncate(visible(JSON.stringify(call.arguments)), 200)})`);
      return true;
    }
    case 'tool-result': {
      const { result } = event;
      const started = toolStarted.get(result.toolCallId);
      const seconds = started === undefined ? 0 : (Date.now() - started) / 1000;
      const elapsed = seconds >= 1 ? style(output, 'dim', ` (${seconds.toFixed(1)}s)`) : '';
      const mark = result.success ? style(output, 'green', '✓') : style(output, 'red', '✗');
      eprintln(output, `${mark} ${visible(result.name)}: ${truncate(visible(result.message.replace(/\s+/g, ' ')), 300)}${elapsed}`);
      return true;
    }
    case 'warning':
      eprintln(output, style(output, 'yellow', `warning: ${visible(event.warning.message, { multiline: true })}`));
      return atLineStart;
    case 'error':
      eprintln(output, `${style(output, 'red', 'error:')} ${visible(event.error.message, { multiline: true })}`);
      return true;
    case 'reasoning-delta':
    case 'tool-call-start':
    case 'tool-call-delta':
    case 'finish':
      return atLineStart;
    default: {
      const unexpected: never = event;
      return unexpected;
    }
  }
}

/** Errors become `{ type: 'error', message }` so every line is plain JSON. */
function toJsonEvent(event: ChatStreamEvent): unknown {
  if (event.type === 'error') return { type: 'error', message: event.error.message, name: event.error.name };
  return event;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Past this many characters a command may not fit the screen: its start can scroll away. */
const LONG_COMMAND_CHARS = 1_000;

/**
 * The `[y/N]` question for a shell command: every argument quoted with invisible characters
 * shown. A long one (padding can push `rm -rf ~` off the top of the screen) gets a last line
 * saying how long it is, next to the answer.
 */
export function approvalQuestion(output: Output, argv: readonly string[]): string {
  const shown = argv.map(quoteArgument).join(' ');
  const run = `${style(output, 'yellow', 'run')} ${shown}`;
  const answer = style(output, 'dim', '[y/N]');
  if (shown.length <= LONG_COMMAND_CHARS) return `${run} ${answer} `;
  const size = `${shown.length} characters in ${argv.length} argument${argv.length === 1 ? '' : 's'}`;
  return `${run}\n${style(output, 'yellow', `↑ a long command (${size}): scroll up and read all of it before you answer`)} ${answer} `;
}

interface AskToRun {
  /** The session's line reader; absent for `chat "prompt"`. */
  rl: Interface | undefined;
  argv: readonly string[];
  /** The turn's signal: a cancelled turn takes its question away. */
  signal: AbortSignal;
  /** Cancels the whole command (Ctrl-C at the question of `chat "prompt"`). */
  cancel: () => void;
}

async function askToRun(context: CommandContext, ask: AskToRun): Promise<boolean> {
  const { rl, signal } = ask;
  const shown = ask.argv.map(quoteArgument).join(' ');
  const question = approvalQuestion(context.output, ask.argv);
  if (rl !== undefined) {
    // Without the signal the question outlives a cancelled turn: the next line typed would
    // answer it, and the session's own prompt would never come back.
    const answer = await rl.question(question, { signal });
    return /^y(es)?$/i.test(answer.trim());
  }
  if (context.stdin.isTTY !== true) {
    eprintln(context.output, `refused to run \`${shown}\`: no terminal to confirm on (pass --yes to allow shell commands)`);
    return false;
  }
  const once = createInterface({ input: context.stdin, output: context.output.err, terminal: true });
  // The terminal is in raw mode while it asks: Ctrl-C arrives here, not as a signal.
  once.on('SIGINT', ask.cancel);
  try {
    return /^y(es)?$/i.test((await once.question(question, { signal })).trim());
  } finally {
    once.close();
  }
}
