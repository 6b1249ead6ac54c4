import { InvalidToolConfigError, partitionTools } from '@toolwire/core';
import type { FunctionToolSpec, ToolChoice, ToolSpec, Warning } from '@toolwire/core';
import { checkToolName, toResponsesFunctionTool } from '@toolwire/openai-responses';

import { PROVIDER_NAME } from './constants.ts';
import { describeCliTools } from './tools/cli-tools.ts';
import {
  PLAN_TOOL_NAMES,
  SHELL_DESCRIPTION,
  SHELL_PARAMETERS,
  SHELL_TOOL_NAMES,
  UPDATE_PLAN_DESCRIPTION,
  UPDATE_PLAN_PARAMETERS,
} from './tools/codex-tools.ts';
import type { ChatGPTToolMode, ToolMapping, WireTool, WireToolChoice } from './tools/wire-tool.ts';

/** The tools of one request, ready for the wire. */
export interface PreparedTools {
  tools: WireTool[];
  toolChoice: WireToolChoice | undefined;
  mapping: ToolMapping;
  warnings: Warning[];
  /** Caller tools that were not offered at all (codex mode). */
  leftOut: string[];
  /** The description of CLI tools for a developer message, when any are offered. */
  cliToolsPrompt: string | undefined;
}

/**
 * Maps a request's tools to the backend's. `passthrough`: every function tool as a
 * Responses function tool with a normalised schema (in the strict form for `strict: true` tools). `codex`: only Codex's `shell` and
 * `update_plan`, for the caller tools with those roles; other tools become `toolwire-tool`
 * commands (`cliTools`) or are left out with a warning.
 */
export function prepareTools(options: {
  tools: readonly ToolSpec[] | undefined;
  toolChoice: ToolChoice | undefined;
  mode: ChatGPTToolMode;
  cliTools: boolean;
}): PreparedTools {
  const { functionTools, providerTools } = partitionTools(options.tools, PROVIDER_NAME);
  const warnings: Warning[] = [];
  const tools: WireTool[] = [];
  const toUser = new Map<string, string>();
  const toWire = new Map<string, string>();
  const cliTools = new Set<string>();
  const cliToolSpecs: FunctionToolSpec[] = [];
  const leftOut: string[] = [];

  for (const tool of functionTools) checkToolName(tool.name);

  if (options.mode === 'passthrough') {
    for (const tool of functionTools) {
      // Schemas cleaned up as Codex does (tools/spec.rs), and a strict tool's schema in the
      // strict form: the backend refuses a schema marked strict that is not.
      tools.push(toResponsesFunctionTool(tool, { normalizeSchemas: true }));
      toUser.set(tool.name, tool.name);
      toWire.set(tool.name, tool.name);
    }
  } else {
    for (const tool of functionTools) {
      const wireName = SHELL_TOOL_NAMES.includes(tool.name) ? 'shell' : PLAN_TOOL_NAMES.includes(tool.name) ? 'update_plan' : undefined;
      if (wireName !== undefined && !toUser.has(wireName)) {
        toUser.set(wireName, tool.name);
        toWire.set(tool.name, wireName);
      } else if (options.cliTools) {
        cliTools.add(tool.name);
        cliToolSpecs.push(tool);
      } else {
        leftOut.push(tool.name);
        const reason =
          wireName !== undefined
            ? `Codex's \`${wireName}\` is already taken by tool "${toUser.get(wireName) ?? ''}"`
            : 'it has no Codex equivalent (toolMode "codex" offers only `shell` and `update_plan`)';
        warnings.push({
          type: 'unsupported-tool',
          toolName: tool.name,
          message: `Tool "${tool.name}" was left out: ${reason}. Use toolMode "passthrough" to send it as a function, or cliTools: true to offer it as a \`toolwire-tool\` command.`,
        });
      }
    }
    if (toUser.has('shell') || cliTools.size > 0) {
      tools.push({ type: 'function', name: 'shell', description: SHELL_DESCRIPTION, strict: false, parameters: SHELL_PARAMETERS });
    }
    if (toUser.has('update_plan')) {
      tools.push({ type: 'function', name: 'update_plan', description: UPDATE_PLAN_DESCRIPTION, strict: false, parameters: UPDATE_PLAN_PARAMETERS });
    }
  }

  for (const tool of providerTools) {
    const wireTool = tool.config.wireTool;
    if (typeof wireTool !== 'object' || wireTool === null || !('type' in wireTool) || typeof wireTool.type !== 'string') {
      throw new InvalidToolConfigError({ toolName: tool.name, problem: 'a chatgpt provider tool needs `config.wireTool`, the object to put in the `tools` array.' });
    }
    tools.push(wireTool as WireTool);
    toUser.set(tool.name, tool.name);
    toWire.set(tool.name, tool.name);
  }

  const mapping: ToolMapping = { mode: options.mode, toUser, toWire, cliTools };
  const toolChoice = mapToolChoice(options.toolChoice, mapping, tools.length > 0, warnings);
  return { tools, toolChoice, mapping, warnings, leftOut, cliToolsPrompt: cliToolSpecs.length > 0 ? describeCliTools(cliToolSpecs) : undefined };
}

function mapToolChoice(choice: ToolChoice | undefined, mapping: ToolMapping, hasTools: boolean, warnings: Warning[]): WireToolChoice | undefined {
  if (!hasTools) return undefined;
  if (choice === undefined) return 'auto';
  if (typeof choice === 'string') return choice;
  const wireName = mapping.toWire.get(choice.name) ?? (mapping.cliTools.has(choice.name) ? 'shell' : undefined);
  if (wireName === undefined) {
    warnings.push({
      type: 'unsupported-setting',
      setting: 'toolChoice',
      message: `toolChoice names tool "${choice.name}", which is not offered to the model in this request; "auto" was used instead.`,
    });
    return 'auto';
  }
  return { type: 'function', name: wireName };
}
