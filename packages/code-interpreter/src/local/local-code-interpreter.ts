import { tmpdir } from 'node:os';
import { InvalidToolConfigError, toolOutput } from '@toolwire/core';
import type { Message, Tool, ToolExecutionContext, ToolOutput, ToolResult, ToolValidationResult } from '@toolwire/core';
import { getSandboxSupport } from '@toolwire/sandbox';
import type { JsSandbox } from '@toolwire/sandbox';
import type { CodeInterpreterValue } from '../code-interpreter-value.ts';
import { emitEvent } from '../events.ts';
import type { CodeInterpreterEventHandler } from '../events.ts';
import { findPython } from './find-python.ts';
import { MAX_PYTHON_CODE_BYTES, pythonCommand } from './python-runner.ts';
import { defaultSandboxBackend } from './sandbox-backend.ts';
import type { SandboxBackend } from './sandbox-backend.ts';
import { changedFiles, imageOutputs, snapshotWorkDir } from './work-dir-files.ts';
import { createWorkDirSessions } from './work-dir-sessions.ts';
import { emptyWorkDir, measureWorkDir } from './work-dir-usage.ts';
import type { WorkDirUsage } from './work-dir-usage.ts';

/** Options of `localCodeInterpreter`. */
export interface LocalCodeInterpreterOptions {
  language: 'javascript' | 'python';
  /** Tool name. Default `'run_python'` / `'run_javascript'`. */
  name?: string;
  /** Tool description the model reads; the default says what the sandbox allows. */
  description?: string;
  /** Where work directories are created. Default the system temp directory. */
  root?: string;
  /** Limit per run. Default 10 000 ms for Python, 5 000 ms for JavaScript. */
  timeoutMs?: number;
  /** Memory limit per run. Default 512 MB for Python, 64 MB for JavaScript. */
  memoryLimitMb?: number;
  /** Cap on captured stdout and stderr, each. Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * Python: the most disk space one conversation's work dir may take, in MB (default 1024).
   * Watched while code runs: a run that passes it is stopped, and the work dir is emptied.
   */
  maxWorkDirMb?: number;
  /** Python: the most files and directories one work dir may hold (default 10 000); past it, as `maxWorkDirMb`. */
  maxWorkDirFiles?: number;
  /** A conversation's work dir is removed after this long without a run. Default 20 minutes, like OpenAI's containers. */
  idleTimeoutMs?: number;
  /** The Python interpreter; default the first of /usr/bin/python3, /usr/local/bin/python3, /bin/python3. */
  pythonPath?: string;
  /**
   * Which conversation a call belongs to (one work dir each). Default: the identity of the
   * conversation's first message, which `runTools` passes along, else one shared session.
   */
  conversationKey?: (context: ToolExecutionContext) => string | undefined;
  /** `'none'` runs Python without bubblewrap: only for code you trust. Default `'bubblewrap'`. */
  isolation?: 'bubblewrap' | 'none';
  /** Replaces `@toolwire/sandbox`'s functions (another sandbox, a remote executor). */
  sandbox?: Partial<SandboxBackend>;
  /** Reports each run and removed work dirs. */
  onEvent?: CodeInterpreterEventHandler;
}

/** Per-run options of `LocalCodeInterpreter.run`. */
export interface LocalRunOptions {
  /** The conversation (work dir) to run in. Default `'default'`. */
  conversation?: string;
  /** Put in the returned `ToolResult`. */
  toolCallId?: string;
  /** Aborting it stops the code at once (the Python process group is killed, the JavaScript worker replaced). */
  signal?: AbortSignal;
}

/** Arguments of the local interpreter tool. */
export interface LocalCodeInterpreterArgs {
  code: string;
}

/**
 * A function tool that runs model-written code locally in a sandbox, for providers without
 * a code interpreter of their own. Through `executeToolCall`/`runTools` its result is the
 * same as `run`'s: stdout as the message, the `CodeInterpreterValue` as the value, and
 * `success: false` (value kept) when the code raises or times out.
 */
export interface LocalCodeInterpreter extends Tool<LocalCodeInterpreterArgs, ToolOutput> {
  /** Runs `code` and returns the full `ToolResult`: `message` is stdout, `success: false` on an exception or timeout. */
  run(code: string, options?: LocalRunOptions): Promise<ToolResult>;
  /** Stops the runs under way (their results say so), then removes every work dir and stops the JavaScript sandbox. */
  dispose(): Promise<void>;
}

const DEFAULT_CONVERSATION = 'default';
const DISPOSED_MESSAGE = 'The run was stopped because the interpreter was disposed.';

/** What one run produced, before it becomes a `ToolResult`. */
interface RunOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  truncated: boolean;
  /** The work dir passed `maxWorkDirMb` or `maxWorkDirFiles` during or after the run (it was stopped, and the dir emptied). */
  overQuota?: WorkDirUsage['over'];
}

/** How often a running Python cell's work dir is measured, at most (after each measurement ends). */
const QUOTA_CHECK_INTERVAL_MS = 200;
/** After a measurement, the watcher waits at least this many times as long as it took. */
const QUOTA_CHECK_WAIT_FACTOR = 4;

const DESCRIPTIONS = {
  python:
    'Runs Python 3 code in a sandbox without network access and returns what it prints; the value of the last expression is printed, as in a notebook. ' +
    'Files written to the current directory persist for this conversation and are listed in the result. Variables do not persist between calls. Standard library only.',
  javascript:
    'Runs JavaScript in an isolated sandbox and returns what console.log prints and the value of the last expression (awaited if it is a promise). ' +
    'No filesystem, network or Node.js APIs.',
} as const;

function positive(value: number | undefined, fallback: number, option: string, toolName: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidToolConfigError({ toolName, problem: `${option} must be a positive number, got ${String(value)}.` });
  }
  return value;
}

function validateArgs(args: unknown): ToolValidationResult<LocalCodeInterpreterArgs> {
  const code = typeof args === 'object' && args !== null ? (args as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || code.trim() === '') {
    return {
      success: false,
      message: 'Pass the code to run as a non-empty string: {"code": "print(1 + 1)"}.',
      issues: [{ path: 'code', message: 'must be a non-empty string' }],
    };
  }
  return { success: true, value: { code } };
}

function joinText(...parts: string[]): string {
  return parts.filter((part) => part !== '').join('\n');
}

function jsRepr(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[a value that cannot be shown as JSON]';
  }
}

/**
 * A local code interpreter tool: JavaScript in a `@toolwire/sandbox` isolate, or Python
 * 3 under bubblewrap (no network, a memory limit, a timeout), in a work dir that persists
 * for the conversation. Results have the shape of OpenAI's code interpreter results
 * (`containerId: 'local:<id>'`), and, unlike OpenAI, a Python exception is reported as a
 * failure with the traceback in `stderr`.
 *
 * @example
 * const python = localCodeInterpreter({ language: 'python', timeoutMs: 5000 });
 * const result = await runTools({ model: ollama('qwen3'), messages, tools: [python] });
 * await python.dispose();
 */
export function localCodeInterpreter(options: LocalCodeInterpreterOptions): LocalCodeInterpreter {
  const { language } = options;
  if (language !== 'python' && language !== 'javascript') {
    throw new InvalidToolConfigError({
      toolName: options.name ?? 'local_code_interpreter',
      problem: `language must be 'python' or 'javascript', got ${JSON.stringify(language) ?? String(language)}.`,
    });
  }
  const name = options.name ?? (language === 'python' ? 'run_python' : 'run_javascript');
  const timeoutMs = positive(options.timeoutMs, language === 'python' ? 10_000 : 5_000, 'timeoutMs', name);
  const memoryLimitMb = positive(options.memoryLimitMb, language === 'python' ? 512 : 64, 'memoryLimitMb', name);
  const maxOutputBytes = positive(options.maxOutputBytes, 1024 * 1024, 'maxOutputBytes', name);
  const idleTimeoutMs = positive(options.idleTimeoutMs, 20 * 60_000, 'idleTimeoutMs', name);
  const quota = {
    maxBytes: positive(options.maxWorkDirMb, 1024, 'maxWorkDirMb', name) * 1024 * 1024,
    maxEntries: positive(options.maxWorkDirFiles, 10_000, 'maxWorkDirFiles', name),
  };
  const isolation = options.isolation ?? 'bubblewrap';
  if (isolation !== 'bubblewrap' && isolation !== 'none') {
    throw new InvalidToolConfigError({ toolName: name, problem: "isolation must be 'bubblewrap' or 'none'." });
  }
  const { onEvent } = options;
  // As root without a writable pids cgroup the sandbox runs commands as an unprivileged uid
  // (so that its process limit binds), which must be able to write the work dirs.
  const ownerUid = () => (language === 'python' && isolation === 'bubblewrap' ? getSandboxSupport().hostUid : undefined);
  const sessions = createWorkDirSessions({ root: options.root ?? tmpdir(), idleTimeoutMs, onEvent, ownerUid });
  const conversations = new WeakMap<Message, string>();
  let conversationCount = 0;
  const backend: SandboxBackend = {
    createJsSandbox: options.sandbox?.createJsSandbox ?? defaultSandboxBackend.createJsSandbox,
    runCommand: options.sandbox?.runCommand ?? defaultSandboxBackend.runCommand,
  };
  let python: Promise<string> | undefined;
  let jsSandbox: JsSandbox | undefined;
  // `dispose` stops the runs under way (and any that start while it works) before it removes
  // their work dirs: sandboxed code still running could swap a directory for a symlink while
  // the host removes the tree, and the host would delete what the link points at.
  let disposing = new AbortController();
  const active = new Set<Promise<unknown>>();

  function conversationOf(context: ToolExecutionContext): string {
    if (options.conversationKey !== undefined) return options.conversationKey(context) ?? DEFAULT_CONVERSATION;
    const first = context.messages?.[0];
    if (first === undefined) return DEFAULT_CONVERSATION;
    let key = conversations.get(first);
    if (key === undefined) {
      key = `conversation-${++conversationCount}`;
      conversations.set(first, key);
    }
    return key;
  }

  async function runPython(code: string, dir: string, signal: AbortSignal | undefined, disposed: AbortSignal): Promise<RunOutcome> {
    if (Buffer.byteLength(code) > MAX_PYTHON_CODE_BYTES) {
      return { stdout: '', stderr: `The code is longer than ${MAX_PYTHON_CODE_BYTES} bytes; split it into smaller cells.`, exitCode: 1, timedOut: false, truncated: false };
    }
    python ??= findPython(options.pythonPath);
    const interpreter = await python.catch((error: unknown) => {
      python = undefined;
      throw error;
    });
    if (disposed.aborted) return { stdout: '', stderr: DISPOSED_MESSAGE, exitCode: 1, timedOut: false, truncated: false };
    // The work dir is watched while the code runs: past the quota the run is stopped (the
    // process group killed), so a loop writing files cannot fill the host's disk.
    const watch = new AbortController();
    let overQuota: WorkDirUsage['over'];
    let watching = true;
    let stopWaiting = (): void => undefined;
    const watcher = (async () => {
      let wait = QUOTA_CHECK_INTERVAL_MS;
      while (watching) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          stopWaiting = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        if (!watching) return;
        // While the code runs nothing is chmod'ed (see `codeRunning`); a failed walk is tried again.
        const started = performance.now();
        const usage = await measureWorkDir(dir, { ...quota, codeRunning: true }).catch(() => undefined);
        // A walk of thousands of files takes the host's CPU for a good part of the interval
        // (10 000 files: ~160 ms here): waiting four times as long as the walk took keeps
        // the watcher under a fifth of a core.
        wait = Math.max(QUOTA_CHECK_INTERVAL_MS, QUOTA_CHECK_WAIT_FACTOR * (performance.now() - started));
        if (usage?.over !== undefined && watching) {
          overQuota = usage.over;
          watch.abort(new Error('The work dir passed its quota.'));
          return;
        }
      }
    })();
    let result;
    try {
      result = await backend.runCommand({
        command: pythonCommand(interpreter, code, memoryLimitMb),
        cwd: dir,
        timeoutMs,
        maxOutputBytes,
        env: { PYTHONIOENCODING: 'utf-8', PYTHONUNBUFFERED: '1', MPLBACKEND: 'Agg' },
        network: false,
        isolation,
        limits: { memoryMb: memoryLimitMb },
        signal: AbortSignal.any(signal === undefined ? [disposed, watch.signal] : [signal, disposed, watch.signal]),
      });
    } finally {
      watching = false;
      stopWaiting();
      await watcher.catch(() => undefined);
    }
    const stopped =
      signal?.aborted === true && !result.timedOut
        ? 'aborted: The run was stopped because its caller aborted.'
        : disposed.aborted && !result.timedOut
          ? DISPOSED_MESSAGE
          : '';
    return {
      stdout: result.stdout,
      stderr: joinText(result.stderr, stopped),
      exitCode: result.exitCode ?? (result.timedOut ? 124 : 1),
      timedOut: result.timedOut,
      truncated: result.truncated,
      ...(overQuota === undefined ? {} : { overQuota }),
    };
  }

  function quotaMessage(over: NonNullable<WorkDirUsage['over']>, emptyingFailure: string | undefined): string {
    const what = {
      bytes: `filled its work dir with more than ${quota.maxBytes / (1024 * 1024)} MB of disk (maxWorkDirMb)`,
      entries: `filled its work dir with more than ${quota.maxEntries} files and directories (maxWorkDirFiles)`,
      depth: 'nested directories in its work dir deeper than the host can measure (a path over 4000 bytes)',
      unreadable: 'made a directory in its work dir unreadable, which the host must measure',
    }[over];
    if (emptyingFailure !== undefined) {
      return `The code ${what}, so it was stopped; emptying the work dir failed (${emptyingFailure}) and is tried again after the next run. Delete files once they are no longer needed.`;
    }
    return `The code ${what}, so it was stopped and the work dir was emptied (files from earlier calls are gone too). Write less, keep directories readable and shallow, or delete files once they are no longer needed.`;
  }

  async function runJavaScript(code: string, signal: AbortSignal | undefined, disposed: AbortSignal): Promise<RunOutcome> {
    if (disposed.aborted) return { stdout: '', stderr: DISPOSED_MESSAGE, exitCode: 1, timedOut: false, truncated: false };
    jsSandbox ??= backend.createJsSandbox({ memoryLimitMb, timeoutMs, maxOutputBytes, poolSize: 1 });
    const result = await jsSandbox.run(code, { signal: signal === undefined ? disposed : AbortSignal.any([signal, disposed]) });
    if (result.ok) {
      return { stdout: joinText(result.logs.join('\n'), jsRepr(result.value)), stderr: '', exitCode: 0, timedOut: false, truncated: false };
    }
    const kind = result.error.kind;
    return {
      stdout: result.logs.join('\n'),
      stderr: `${kind === 'error' ? 'Error' : kind}: ${result.error.message}`,
      exitCode: 1,
      timedOut: kind === 'timeout',
      truncated: kind === 'output-limit',
    };
  }

  function run(code: string, runOptions: LocalRunOptions = {}): Promise<ToolResult> {
    const task = runInWorkDir(code, runOptions, disposing.signal);
    active.add(task);
    void task.then(
      () => active.delete(task),
      () => active.delete(task),
    );
    return task;
  }

  async function runInWorkDir(code: string, runOptions: LocalRunOptions, disposed: AbortSignal): Promise<ToolResult> {
    const conversation = runOptions.conversation ?? DEFAULT_CONVERSATION;
    const started = performance.now();
    const workDir = await sessions.acquire(conversation);
    try {
      const before = await snapshotWorkDir(workDir.path);
      const outcome =
        language === 'python' ? await runPython(code, workDir.path, runOptions.signal, disposed) : await runJavaScript(code, runOptions.signal, disposed);
      if (language === 'python') {
        // Measured once more with the code stopped: what it wrote between two checks, or in
        // the last moments, counts too. Past the quota the work dir is emptied.
        outcome.overQuota ??= (await measureWorkDir(workDir.path, quota)).over;
        if (outcome.overQuota !== undefined) {
          // It can fail where code outlives its run or marks files immutable (isolation 'none'):
          // the run still gets its result, and the next run's measurement tries again.
          const failure = await emptyWorkDir(workDir.path).then(
            () => undefined,
            (error: unknown) => (error instanceof Error ? error.message : String(error)),
          );
          outcome.exitCode = outcome.exitCode === 0 ? 1 : outcome.exitCode;
          outcome.stderr = joinText(outcome.stderr, quotaMessage(outcome.overQuota, failure));
        }
      }
      const files = changedFiles({ dir: workDir.path, containerId: workDir.containerId, before, after: await snapshotWorkDir(workDir.path) });
      const value: CodeInterpreterValue = {
        code,
        containerId: workDir.containerId,
        outputs: [...(outcome.stdout === '' ? [] : [{ type: 'logs' as const, logs: outcome.stdout }]), ...(await imageOutputs(files))],
        files,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
        exitCode: outcome.exitCode,
      };
      const success = outcome.exitCode === 0 && !outcome.timedOut;
      emitEvent(onEvent, {
        type: 'local-run',
        containerId: workDir.containerId,
        language,
        success,
        timedOut: outcome.timedOut,
        durationMs: Math.round(performance.now() - started),
      });
      const notes = joinText(
        outcome.truncated ? `[output cut at ${maxOutputBytes} bytes]` : '',
        files.length > 0 ? `[files: ${files.map((f) => f.fileId).join(', ')}]` : '',
      );
      const result: ToolResult = {
        toolCallId: runOptions.toolCallId ?? '',
        name,
        success,
        message: success ? joinText(outcome.stdout, notes) || '(no output)' : joinText(outcome.stdout, outcome.stderr, notes),
        value,
      };
      if (outcome.timedOut && outcome.overQuota === undefined) {
        result.message = joinText(outcome.stdout, `Timed out after ${timeoutMs} ms and was stopped. Make the code faster or do less per call.`, notes);
        result.error = { type: 'timeout', message: result.message };
      } else if (!success) {
        result.error = { type: 'execution_error', message: result.message };
      }
      return result;
    } finally {
      workDir.release();
    }
  }

  return {
    type: 'function',
    name,
    description: options.description ?? DESCRIPTIONS[language],
    inputSchema: {
      type: 'object',
      properties: { code: { type: 'string', description: language === 'python' ? 'Python 3 source to run.' : 'JavaScript source to run.' } },
      required: ['code'],
      additionalProperties: false,
    },
    validate: validateArgs,
    async execute(args, context) {
      const result = await run(args.code, { conversation: conversationOf(context), toolCallId: context.toolCallId, signal: context.signal });
      return toolOutput({
        message: result.message,
        value: result.value,
        success: result.success,
        ...(result.error ? { errorType: result.error.type } : {}),
      });
    },
    run,
    async dispose() {
      disposing.abort(new Error('The interpreter was disposed.'));
      try {
        await Promise.allSettled([...active]);
        const sandbox = jsSandbox;
        jsSandbox = undefined;
        await Promise.all([sessions.dispose(), sandbox?.dispose()]);
      } finally {
        disposing = new AbortController();
      }
    },
  };
}
