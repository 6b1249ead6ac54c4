import type { ChatRequest, ToolRegistry, ToolSpec } from '@toolwire/core';
import type { Principal } from '../auth/api-key-store.ts';
import { GatewayError, invalidRequest } from '../wire/gateway-error.ts';
import type { ParsedChatRequest, ParsedTool } from '../wire/parsed-chat-request.ts';

/** A request ready for the gateway's loop. */
export interface PreparedChatRequest {
  /** What the model is offered: the client's functions as sent, and the server tools (core `Tool`s) asked for. */
  request: ChatRequest;
  /** Names of the client's own functions: their calls go back to the client. */
  clientTools: ReadonlySet<string>;
}

/** What `prepareChatRequest` reads from the server. */
export interface PrepareContext {
  serverTools: ToolRegistry;
}

function notAllowed(principal: Principal, tool: ParsedTool, serverTools: ToolRegistry): GatewayError {
  const allowed = serverTools.list(principal.id).map((t) => t.name);
  return new GatewayError({
    status: 403,
    type: 'permission_error',
    message: `The API key '${principal.id}' may not use the server tool '${tool.spec.name}'. Allowed: ${allowed.join(', ') || '(none)'}.`,
    param: tool.param ?? `tools[${tool.index}]`,
    code: 'tool_not_allowed',
    retryable: false,
  });
}

/** The name-only `tools` entry that asks for a server tool, as the request's API writes it. */
function nameOnlyEntry(wire: ParsedChatRequest['wire'], name: string): string {
  return wire === 'responses' ? `{ "type": "function", "name": "${name}" }` : `{ "type": "function", "function": { "name": "${name}" } }`;
}

function functionParam(tool: ParsedTool): string {
  return tool.param ?? `tools[${tool.index}].function`;
}

function ambiguous(tool: ParsedTool, wire: ParsedChatRequest['wire']): GatewayError {
  const { name } = tool.spec;
  return invalidRequest(
    `The function '${name}' has no 'parameters' but a description or 'strict', and '${name}' is also a server tool of this gateway, so it is unclear whose it is. ` +
      `Send ${nameOnlyEntry(wire, name)} (the name alone) to use the server's tool, or give your function 'parameters' (e.g. { "type": "object", "properties": {} }) to keep it yours.`,
    functionParam(tool),
    'ambiguous_tool',
  );
}

function conflict(principal: Principal, tool: ParsedTool, wire: ParsedChatRequest['wire']): GatewayError {
  const { name } = tool.spec;
  return invalidRequest(
    `The function '${name}' is defined in this request, and the API key '${principal.id}' always adds the gateway's server tool '${name}' (alwaysTools), so two tools would share one name. ` +
      `Rename your function, send ${nameOnlyEntry(wire, name)} (the name alone) to use the server's tool, or ask the operator to take '${name}' out of this key's alwaysTools.`,
    functionParam(tool),
    'tool_conflict',
  );
}

/**
 * Decides whose each offered function is, and builds the request the model sees. The rule
 * (apps/server/README.md, "Whose tool is it"): a function with `parameters` is always the
 * client's, sent as written, whatever its name; `{ name }` alone asks for the server tool
 * of that name (403 when the key may not use it; a client function without parameters
 * otherwise); the key's `alwaysTools` are added unless `tool_choice` is `none`. A
 * description without parameters naming a server tool, or a client function that shares
 * a name with an `alwaysTools` entry, is a 400 saying how to resolve it.
 */
export function prepareChatRequest(context: PrepareContext, principal: Principal, parsed: ParsedChatRequest): PreparedChatRequest {
  const { serverTools } = context;
  const specs: ToolSpec[] = [];
  const clientTools = new Set<string>();
  const offered = new Set<string>();
  for (const tool of parsed.tools) {
    const { name } = tool.spec;
    offered.add(name);
    const serverTool = serverTools.get(name);
    if (serverTool === undefined || tool.definition === 'with-parameters') {
      specs.push(tool.spec);
      clientTools.add(name);
      continue;
    }
    if (tool.definition === 'without-parameters') throw ambiguous(tool, parsed.wire);
    if (!serverTools.isAllowed(name, principal.id)) throw notAllowed(principal, tool, serverTools);
    specs.push(serverTool);
  }
  if (parsed.toolChoice !== 'none') {
    for (const name of principal.alwaysTools) {
      const serverTool = serverTools.get(name);
      // A key's alwaysTools never widen what it may use.
      if (serverTool === undefined || !serverTools.isAllowed(name, principal.id)) continue;
      if (clientTools.has(name)) {
        const tool = parsed.tools.find((t) => t.spec.name === name);
        if (tool !== undefined) throw conflict(principal, tool, parsed.wire);
      }
      if (offered.has(name)) continue;
      offered.add(name);
      specs.push(serverTool);
    }
  }
  // The route restores hidden turns into these messages from the shared state (see GatewayState.restoreTurns).
  const request: ChatRequest = { messages: parsed.messages };
  if (specs.length > 0) request.tools = specs;
  if (parsed.toolChoice !== undefined) request.toolChoice = parsed.toolChoice;
  if (parsed.parallelToolCalls !== undefined) request.parallelToolCalls = parsed.parallelToolCalls;
  if (parsed.maxOutputTokens !== undefined) request.maxOutputTokens = parsed.maxOutputTokens;
  if (parsed.temperature !== undefined) request.temperature = parsed.temperature;
  if (parsed.topP !== undefined) request.topP = parsed.topP;
  if (parsed.stop !== undefined) request.stop = parsed.stop;
  if (parsed.seed !== undefined) request.seed = parsed.seed;
  if (parsed.responseFormat !== undefined) request.responseFormat = parsed.responseFormat;
  return { request, clientTools: clientTools.size === 0 ? NO_CLIENT_TOOLS : clientTools };
}

/** The client tools of a request that offers none: one set for all of them (a stream keeps its set for its whole length). */
const NO_CLIENT_TOOLS: ReadonlySet<string> = new Set();
