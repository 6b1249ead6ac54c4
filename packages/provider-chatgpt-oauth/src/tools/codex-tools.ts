import type { JsonSchema } from '@toolwire/core';

/** Caller tool names that become Codex's `shell` in codex mode (exact names, as the design notes list them). */
export const SHELL_TOOL_NAMES: readonly string[] = ['bash', 'shell', 'command', 'execute'];

/** Caller tool names that become Codex's `update_plan` in codex mode. */
export const PLAN_TOOL_NAMES: readonly string[] = ['TodoWrite', 'update_plan', 'plan', 'todo'];

/**
 * Codex's `shell` parameters (`codex-rs/core/src/tools/spec.rs`): an argv array, never a
 * command string. The caller's tool receives exactly these arguments (`timeout` from
 * older models is renamed `timeout_ms`).
 */
export const SHELL_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    command: { type: 'array', items: { type: 'string' }, description: 'The command to run, as an argv array.' },
    workdir: { type: 'string', description: 'The working directory to run the command in.' },
    timeout_ms: { type: 'number', description: 'The timeout for the command in milliseconds.' },
  },
  required: ['command'],
  additionalProperties: false,
};

/** Codex's `update_plan` parameters (`codex-rs/core/src/plan_tool.rs`). */
export const UPDATE_PLAN_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    explanation: { type: 'string' },
    plan: {
      type: 'array',
      description: 'The list of steps',
      items: {
        type: 'object',
        properties: {
          step: { type: 'string' },
          status: { type: 'string', enum: ['pending', 'in_progress', 'completed'], description: 'One of: pending, in_progress, completed' },
        },
        required: ['step', 'status'],
        additionalProperties: false,
      },
    },
  },
  required: ['plan'],
  additionalProperties: false,
};

/** The description sent with `shell`. */
export const SHELL_DESCRIPTION = 'Runs a shell command and returns its output.';

/** The description sent with `update_plan`. */
export const UPDATE_PLAN_DESCRIPTION =
  'Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status. At most one step can be in_progress at a time.';
