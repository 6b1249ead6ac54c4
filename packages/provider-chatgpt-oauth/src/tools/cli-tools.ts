import type { FunctionToolSpec } from '@toolwire/core';

/**
 * The program name of the CLI-tool pattern: in codex mode the model runs a caller's tool
 * as `shell` with `command: ["toolwire-tool", "<name>", "<json arguments>"]`.
 */
export const CLI_TOOL_COMMAND = 'toolwire-tool';

/**
 * Reads a `shell` call's argv as a CLI-tool command. The argv is compared as an array,
 * element by element; nothing is shell-parsed, so `["bash","-lc","toolwire-tool …"]` is
 * not one. Returns the tool name and its raw JSON argument text.
 */
export function readCliToolCommand(command: unknown): { name: string; rawArguments: string } | undefined {
  if (!Array.isArray(command) || command.length !== 3) return undefined;
  const [program, name, rawArguments] = command as unknown[];
  if (program !== CLI_TOOL_COMMAND || typeof name !== 'string' || name === '' || typeof rawArguments !== 'string') return undefined;
  return { name, rawArguments };
}

/** The argv that calls `name` with `args` through the CLI-tool pattern. */
export function cliToolCommand(name: string, args: Record<string, unknown>): string[] {
  return [CLI_TOOL_COMMAND, name, JSON.stringify(args)];
}

/**
 * The developer message that tells the model which commands exist and how to call them.
 * It is sent as a developer input item rather than appended to `instructions`, because
 * the backend has at times rejected `instructions` that differ from the model's own.
 */
export function describeCliTools(tools: readonly FunctionToolSpec[]): string {
  const lines = [
    '# Tools available as commands',
    `Besides ordinary commands, these tools can be run through the \`shell\` tool. To run one, call \`shell\` with \`command\` set to exactly three strings: ["${CLI_TOOL_COMMAND}", "<tool name>", "<arguments as one JSON object>"].`,
    `Do not wrap the call in \`bash -lc\`, add other arguments or quote the JSON for a shell: the third element is the JSON text itself. Example: {"command": ["${CLI_TOOL_COMMAND}", "${tools[0]?.name ?? 'tool_name'}", "{}"]}.`,
    'The output of the command is the tool result.',
  ];
  for (const tool of tools) {
    lines.push('', `## ${tool.name}`);
    if (tool.description !== undefined && tool.description !== '') lines.push(tool.description);
    lines.push(`Arguments (JSON Schema): ${JSON.stringify(tool.inputSchema)}`);
  }
  return lines.join('\n');
}
