import { basename } from 'node:path';
import { defineTool } from '@toolwire/core';
import type { JsonSchema, Tool, ToolExecutionContext } from '@toolwire/core';
import { SandboxPolicyError } from '../errors.ts';
import type { AuditHandler } from '../policy/audit-event.ts';
import { emitAudit } from '../policy/audit-event.ts';
import type { ExecutionPolicy } from '../policy/execution-policy.ts';
import { checkDurationMs } from '../policy/check-duration.ts';
import { hashArguments } from '../policy/hash-arguments.ts';
import { runCommand } from '../shell/run-command.ts';
import type { CommandLimits, CommandResult } from '../shell/run-command.ts';
import { resolveWorkdir } from './resolve-workdir.ts';

/** Options of `shellTool`. */
export interface ShellToolOptions {
  /** The workspace: the only writable directory; `workdir` must resolve inside it. */
  root: string;
  /**
   * Program names allowed as argv[0] (bare names only: `./ls` or `/usr/bin/ls` are refused
   * while a list is set); default: any not denied. Advisory: it checks argv[0] only, so an
   * allowed program that runs others (`env`, `sh -c`, `find -exec`, `xargs`, interpreters)
   * runs anything. The jail (filesystem, network, limits) is the boundary.
   */
  allowCommands?: string[];
  /**
   * Program names (argv[0]'s base name) refused. Advisory like `allowCommands`:
   * `env curl`, `sh -c "curl …"` or a renamed copy get past it. Use `network: false` (the
   * default), not a deny-list of `curl`, to keep commands off the network.
   */
  denyCommands?: string[];
  /** Default and maximum timeout per command in ms (default 10 000). */
  timeoutMs?: number;
  maxOutputBytes?: number;
  network?: boolean;
  limits?: CommandLimits;
  /** `'none'` runs without isolation; only pass it knowingly (default `'bubblewrap'`). */
  isolation?: 'bubblewrap' | 'none';
  policy?: ExecutionPolicy;
  onAudit?: AuditHandler;
}

/** The `shell` tool's arguments, as in OpenAI Codex. */
export interface ShellToolArgs {
  command: string[];
  workdir?: string;
  timeout_ms?: number;
  /** Seconds; accepted for models that send it. */
  timeout?: number;
}

const SHELL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    command: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'The command to execute, as an argv array.' },
    workdir: { type: 'string', description: 'The working directory to execute the command in.' },
    timeout_ms: { type: 'number', description: 'The timeout for the command in milliseconds.' },
    timeout: { type: 'number', description: 'The timeout for the command in seconds.' },
  },
  required: ['command'],
  additionalProperties: false,
};

/**
 * The Codex-compatible `shell` tool: runs `command` (an argv array) with `runCommand` in
 * `workdir`, which must resolve (real path, symlinks followed) inside `root`. The jail is
 * the boundary; `allowCommands`/`denyCommands` only steer a cooperative model.
 * @example
 * const shell = shellTool({ root: '/srv/workspace', network: false, allowCommands: ['ls', 'cat', 'grep'] });
 */
export function shellTool(options: ShellToolOptions): Tool<ShellToolArgs, CommandResult> {
  const maxTimeoutMs = options.timeoutMs ?? 10_000;
  checkDurationMs(maxTimeoutMs, 'shellTool: `timeoutMs`');
  const deny = new Set(options.denyCommands ?? []);
  const allow = options.allowCommands === undefined ? undefined : new Set(options.allowCommands);

  function refuse(args: unknown, context: ToolExecutionContext, reason: string, message: string): never {
    emitAudit(options.onAudit, {
      kind: 'shell',
      tool: 'shell',
      ...(context.principal === undefined ? {} : { principal: context.principal }),
      argumentsHash: hashArguments(args),
      startedAt: new Date().toISOString(),
      durationMs: 0,
      outcome: 'rejected',
      limitsHit: reason === 'arguments-too-large' ? ['arguments-size'] : reason === 'too-many-concurrent' ? ['concurrency'] : [],
      reason,
    });
    throw new SandboxPolicyError({ reason, message });
  }

  return defineTool<ShellToolArgs, CommandResult>({
    name: 'shell',
    description: 'Runs a shell command (an argv array, executed with execvp, no shell unless you call one) and returns its output.',
    parameters: SHELL_SCHEMA,
    async execute(args: ShellToolArgs, context: ToolExecutionContext): Promise<CommandResult> {
      const argv0 = args.command[0] ?? '';
      const program = basename(argv0);
      // A path could name a workspace file that merely shares an allowed program's name.
      if (allow !== undefined && argv0 !== program) {
        refuse(args, context, 'command-denied', `Run allowed commands by their bare name ("${program}", not "${argv0}"). Allowed: ${[...allow].join(', ')}.`);
      }
      if (deny.has(program) || (allow !== undefined && !allow.has(program))) {
        refuse(args, context, 'command-denied', `The command "${program}" is not allowed here.${allow === undefined ? '' : ` Allowed: ${[...allow].join(', ')}.`}`);
      }
      const cwd = resolveWorkdir(options.root, args.workdir);
      if (cwd === undefined) {
        refuse(args, context, 'workdir-outside-root', `The workdir "${args.workdir ?? ''}" does not exist inside the workspace ${options.root}; use a directory inside it.`);
      }
      const requested = args.timeout_ms ?? (args.timeout === undefined ? undefined : args.timeout * 1000);
      const timeoutMs = Math.max(1, Math.min(requested ?? maxTimeoutMs, maxTimeoutMs));
      const run = () =>
        runCommand({
          command: args.command,
          cwd,
          root: options.root,
          timeoutMs,
          ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
          ...(options.network === undefined ? {} : { network: options.network }),
          ...(options.limits === undefined ? {} : { limits: options.limits }),
          ...(options.isolation === undefined ? {} : { isolation: options.isolation }),
          ...(options.onAudit === undefined ? {} : { onAudit: options.onAudit }),
          ...(context.principal === undefined ? {} : { principal: context.principal }),
          auditTool: 'shell',
          signal: context.signal,
        });
      if (options.policy === undefined) return run();
      const outcome = await options.policy.run(args, run);
      if (!outcome.ok) refuse(args, context, outcome.rejection.reason, outcome.rejection.message);
      return outcome.value;
    },
  });
}
