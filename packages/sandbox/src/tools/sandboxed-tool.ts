import { defineTool } from '@toolwire/core';
import type { JsonSchema, Tool, ToolExecutionContext } from '@toolwire/core';
import { SandboxExecutionError, SandboxPolicyError } from '../errors.ts';
import { createJsSandbox } from '../js/create-js-sandbox.ts';
import type { JsSandbox, JsSandboxOptions } from '../js/create-js-sandbox.ts';
import type { AuditHandler } from '../policy/audit-event.ts';
import { emitAudit } from '../policy/audit-event.ts';
import type { ExecutionPolicy } from '../policy/execution-policy.ts';
import { hashArguments } from '../policy/hash-arguments.ts';

/** Options of `sandboxedTool`. */
export interface SandboxedToolOptions {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /** A function expression, `(args) => …` or `async (args) => …`, run in the sandbox. */
  source: string;
  /** The sandbox to run in (default: one created for this tool from `sandboxOptions`). */
  sandbox?: JsSandbox;
  sandboxOptions?: JsSandboxOptions;
  /** Argument-size and concurrency limits. */
  policy?: ExecutionPolicy;
  onAudit?: AuditHandler;
}

/**
 * A core tool whose `execute` runs `source` in the JavaScript sandbox with the validated
 * arguments copied in. Failures (timeouts, limits, thrown errors) throw
 * `SandboxExecutionError` / `SandboxPolicyError`, which the tool loop reports to the model.
 * @example
 * const add = sandboxedTool({
 *   name: 'add', description: 'Adds two numbers',
 *   parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
 *   source: '({ a, b }) => a + b',
 * });
 */
export function sandboxedTool(options: SandboxedToolOptions): Tool {
  let sandbox = options.sandbox;
  // The source is wrapped, not spliced into other code: it is one parenthesised expression
  // applied to the copied-in arguments.
  const code = `(\n${options.source}\n)(input)`;
  return defineTool({
    name: options.name,
    description: options.description,
    parameters: options.parameters,
    async execute(args: Record<string, unknown>, context: ToolExecutionContext): Promise<unknown> {
      sandbox ??= createJsSandbox(options.sandboxOptions);
      const active = sandbox;
      // The tool's signal fires on the caller's abort and on the loop's timeout: the run stops with it.
      const runOptions = { input: args, signal: context.signal, ...(context.principal === undefined ? {} : { principal: context.principal }) };
      const run = async () => {
        const startedAt = new Date();
        const result = await active.run(code, runOptions);
        emitAudit(options.onAudit, {
          kind: 'js',
          tool: options.name,
          ...(context.principal === undefined ? {} : { principal: context.principal }),
          argumentsHash: hashArguments(args),
          startedAt: startedAt.toISOString(),
          durationMs: Date.now() - startedAt.getTime(),
          outcome: result.ok ? 'ok' : result.error.kind,
          limitsHit: result.ok || result.error.kind === 'error' ? [] : [result.error.kind === 'output-limit' ? 'output' : result.error.kind],
        });
        return result;
      };
      let result;
      if (options.policy === undefined) {
        result = await run();
      } else {
        const outcome = await options.policy.run(args, run);
        if (!outcome.ok) {
          emitAudit(options.onAudit, {
            kind: 'js',
            tool: options.name,
            ...(context.principal === undefined ? {} : { principal: context.principal }),
            argumentsHash: hashArguments(args),
            startedAt: new Date().toISOString(),
            durationMs: 0,
            outcome: 'rejected',
            limitsHit: [outcome.rejection.reason === 'arguments-too-large' ? 'arguments-size' : 'concurrency'],
            reason: outcome.rejection.reason,
          });
          throw new SandboxPolicyError({ reason: outcome.rejection.reason, message: outcome.rejection.message });
        }
        result = outcome.value;
      }
      if (!result.ok) {
        throw new SandboxExecutionError({ kind: result.error.kind, message: result.error.message, logs: result.logs });
      }
      return result.value;
    },
  });
}
