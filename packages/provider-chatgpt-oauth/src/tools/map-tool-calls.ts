import type { ToolCall } from '@toolwire/core';
import { invalidToolCall, toToolCall as toCoreToolCall } from '@toolwire/core/provider';
import type { ResponsesCallMapping, WireFunctionCall } from '@toolwire/openai-responses';

import { isRecord } from '../auth/jwt.ts';
import { CLI_TOOL_COMMAND, cliToolCommand, readCliToolCommand } from './cli-tools.ts';
import type { ToolMapping } from './wire-tool.ts';

export type { WireFunctionCall };

/** The shared Responses decoder's view of a request's tool mapping. */
export function callMappingFor(mapping: ToolMapping): ResponsesCallMapping {
  return {
    userName: (wireName) => mapping.toUser.get(wireName) ?? wireName,
    // A codex-mode `shell` call may turn out to be a `toolwire-tool` command for another tool.
    defer: (wireName) => mapping.mode === 'codex' && wireName === 'shell',
    toToolCall: (call) => toToolCall(mapping, { callId: call.id, name: call.name, arguments: call.rawArguments }, call.truncated === true),
    toWireCall: (toolCall, recorded) => toWireCall(mapping, toolCall, recorded),
  };
}

/**
 * Turns a backend `function_call` into the caller's `ToolCall`: under the caller's own
 * tool name, and, for a codex-mode `shell` call that is a `toolwire-tool` command, as a
 * call of that tool with its JSON arguments. Other calls follow core's `toToolCall` rule;
 * unparseable arguments give an `invalid` call, which the tool loop answers with a
 * validation error.
 */
export function toToolCall(mapping: ToolMapping, call: WireFunctionCall, truncated = false): ToolCall {
  const name = mapping.toUser.get(call.name) ?? call.name;
  if (truncated || mapping.mode !== 'codex' || call.name !== 'shell') {
    // Every other call follows core's one rule for argument text.
    return toCoreToolCall({ id: call.callId, name, rawArguments: call.arguments, truncated });
  }
  return shellCall(mapping, call, parseObject(call.arguments));
}

function shellCall(mapping: ToolMapping, call: WireFunctionCall, parsed: ParseResult): ToolCall {
  const userShell = mapping.toUser.get('shell');
  if ('error' in parsed) {
    return invalidToolCall({ id: call.callId, name: userShell ?? 'shell', rawArguments: call.arguments }, parsed.error);
  }
  const command = readCliToolCommand(parsed.value.command);
  if (command !== undefined && mapping.cliTools.size > 0) {
    const args = parseObject(command.rawArguments);
    if ('error' in args) {
      return {
        id: call.callId,
        name: command.name,
        arguments: {},
        invalid: { rawArguments: command.rawArguments, message: `The third element of the ${CLI_TOOL_COMMAND} command must be a JSON object: ${args.error}` },
      };
    }
    return { id: call.callId, name: command.name, arguments: args.value };
  }
  if (userShell !== undefined) return { id: call.callId, name: userShell, arguments: normalizeShellArguments(parsed.value) };
  return {
    id: call.callId,
    name: 'shell',
    arguments: parsed.value,
    invalid: {
      rawArguments: call.arguments,
      message:
        `Only ${CLI_TOOL_COMMAND} commands can run here. Call shell with command set to exactly ` +
        `["${CLI_TOOL_COMMAND}", "<tool name>", "<JSON arguments>"] (no bash -lc). Tools: ${[...mapping.cliTools].join(', ')}.`,
    },
  };
}

/** Codex's parser still accepts `timeout` for `timeout_ms`; the caller's tool always gets `timeout_ms`. */
function normalizeShellArguments(args: Record<string, unknown>): Record<string, unknown> {
  if (!('timeout' in args)) return args;
  const { timeout, ...rest } = args;
  return 'timeout_ms' in rest ? rest : { ...rest, timeout_ms: timeout };
}

/**
 * The `function_call` to replay for a `ToolCall` from the history: the recorded wire call
 * when the response kept one, else rebuilt from the current request's mapping.
 */
export function toWireCall(mapping: ToolMapping, toolCall: ToolCall, recorded: WireFunctionCall | undefined): WireFunctionCall {
  if (recorded !== undefined) return { ...recorded, callId: toolCall.id };
  const argumentsText = toolCall.invalid?.rawArguments ?? JSON.stringify(toolCall.arguments);
  const wireName = mapping.toWire.get(toolCall.name);
  if (wireName !== undefined) return { callId: toolCall.id, name: wireName, arguments: argumentsText };
  if (mapping.mode === 'codex' && mapping.cliTools.has(toolCall.name) && toolCall.invalid === undefined) {
    return { callId: toolCall.id, name: 'shell', arguments: JSON.stringify({ command: cliToolCommand(toolCall.name, toolCall.arguments) }) };
  }
  return { callId: toolCall.id, name: toolCall.name, arguments: argumentsText };
}

type ParseResult = { value: Record<string, unknown> } | { error: string };

function parseObject(text: string): ParseResult {
  if (text.trim() === '') return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}).` };
  }
  return isRecord(value) ? { value } : { error: 'the arguments must be a JSON object.' };
}
