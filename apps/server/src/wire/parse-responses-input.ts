import type { AssistantMessage, Message, ToolCall, UserContentPart } from '@toolwire/core';
import { invalidRequest } from './gateway-error.ts';
import { CUSTOM_TOOL_INPUT } from './parse-responses-tools.ts';
import { isObject, unsupported } from './request-fields.ts';
import type { Json } from './request-fields.ts';

function textOf(content: unknown, param: string, partTypes: readonly string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest(`Invalid '${param}': expected a string or an array of content parts.`, param, 'invalid_type');
  let text = '';
  content.forEach((part: unknown, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw invalidRequest(`Invalid '${at}': expected a content part object.`, at, 'invalid_type');
    // Not `String(part.type)`: an object with its own `toString` key (`{"toString": 1}`) throws there.
    if (typeof part.type !== 'string' || !partTypes.includes(part.type)) {
      throw unsupported(`Content parts of type ${JSON.stringify(part.type ?? null)} here`, `${at}.type`, `Send parts of type ${partTypes.map((t) => `'${t}'`).join(' or ')}.`);
    }
    const value = part.type === 'refusal' ? part.refusal : part.text;
    if (typeof value !== 'string') throw invalidRequest(`Missing required parameter: '${at}.text'.`, `${at}.text`, 'missing_required_parameter');
    text += value;
  });
  return text;
}

function userContent(content: unknown, param: string): string | UserContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest(`Invalid '${param}': expected a string or an array of content parts.`, param, 'invalid_type');
  return content.map((part: unknown, i): UserContentPart => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw invalidRequest(`Invalid '${at}': expected a content part object.`, at, 'invalid_type');
    switch (part.type) {
      case 'input_text':
        if (typeof part.text !== 'string') throw invalidRequest(`Missing required parameter: '${at}.text'.`, `${at}.text`, 'missing_required_parameter');
        return { type: 'text', text: part.text };
      case 'input_image':
        if (typeof part.image_url === 'string' && part.image_url !== '') return { type: 'image', image: part.image_url };
        throw unsupported("Images by 'file_id'", `${at}.file_id`, "Send the image as 'image_url' (a URL or a data URL).");
      default:
        throw unsupported(`Content parts of type ${JSON.stringify(part.type ?? null)}`, `${at}.type`, "Send 'input_text' or 'input_image' parts.");
    }
  });
}

function callIdOf(item: Json, param: string): string {
  const callId = item.call_id;
  if (typeof callId !== 'string' || callId === '') throw invalidRequest(`Missing required parameter: '${param}.call_id'.`, `${param}.call_id`, 'missing_required_parameter');
  return callId;
}

function callNameOf(item: Json, param: string): string {
  const name = item.name;
  if (typeof name !== 'string' || name === '') throw invalidRequest(`Missing required parameter: '${param}.name'.`, `${param}.name`, 'missing_required_parameter');
  return name;
}

function argumentsOf(raw: unknown, param: string): Record<string, unknown> {
  // `""` (and a missing value) in replayed history means no arguments.
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return {};
  if (typeof raw !== 'string') throw invalidRequest(`Invalid '${param}': expected a JSON string.`, param, 'invalid_type');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidRequest(`Invalid '${param}': not valid JSON. Send the arguments as a JSON object string.`, param, 'invalid_value');
  }
  if (!isObject(parsed)) throw invalidRequest(`Invalid '${param}': expected a JSON object.`, param, 'invalid_value');
  return parsed;
}

function outputText(output: unknown, param: string): string {
  if (typeof output === 'string') return output;
  return textOf(output, param, ['input_text', 'output_text']);
}

/** Where `item_reference` items and `previous_response_id` are looked up (the gateway's response store). */
export interface StoredResponses {
  /** A stored output item by its id, as it was sent (`msg_…`, `fc_…`). */
  item(id: string): unknown;
}

/** Options of `parseResponsesInput`. */
export interface ParseInputOptions {
  /** The conversation so far (`previous_response_id`): the input continues it, answering its open calls. */
  history?: readonly Message[];
  /** Resolves `item_reference` items; without it they are a 400. */
  stored?: StoredResponses;
}

/**
 * Responses `input` (a string, or a list of items) → core messages. Messages keep their
 * roles (`developer` is a system message); `function_call` / `custom_tool_call` items join
 * the assistant turn before them, and each needs its `*_output` item before the next
 * message (as on chat completions). `reasoning` items are accepted and not replayed to the
 * model. Items that need server-side state (`item_reference`) or hosted tools are a 400.
 */
export function parseResponsesInput(raw: unknown, options: ParseInputOptions = {}): Message[] {
  const history = options.history ?? [];
  if (typeof raw === 'string') return [...history, { role: 'user', content: raw }];
  if (raw === undefined || raw === null) throw invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (!Array.isArray(raw)) throw invalidRequest("Invalid 'input': expected a string or an array of input items.", 'input', 'invalid_type');

  const messages: Message[] = [...history];
  // Calls waiting for their output, by call id → tool name.
  const open = new Map<string, string>();
  // The assistant message the current run of call items belongs to.
  let turn: AssistantMessage | undefined;
  const last = history.at(-1);
  if (last?.role === 'assistant' && last.toolCalls !== undefined) {
    // A previous response that ended in calls: the input answers them.
    for (const call of last.toolCalls) open.set(call.id, call.name);
  }
  const checkAnswered = (at: string, param: string): void => {
    if (open.size === 0) return;
    throw invalidRequest(`No tool output found for function call ${[...open.keys()].join(', ')}. Send a 'function_call_output' item for each call before ${at}.`, param, 'invalid_value');
  };
  const addCall = (call: ToolCall): void => {
    if (turn === undefined) {
      turn = { role: 'assistant', content: '' };
      messages.push(turn);
    }
    (turn.toolCalls ??= []).push(call);
    open.set(call.id, call.name);
  };

  const addItem = (given: unknown, at: string): void => {
    if (!isObject(given)) throw invalidRequest(`Invalid '${at}': expected an input item object.`, at, 'invalid_type');
    let entry: Json = given;
    if (entry.type === 'item_reference') {
      const id = entry.id;
      const stored = typeof id === 'string' && options.stored !== undefined ? options.stored.item(id) : undefined;
      if (!isObject(stored)) {
        throw invalidRequest(
          `Item with id ${JSON.stringify(id ?? null)} not found. References work only to items of responses this gateway stored for the same API key (store not false) in the last hour; send the item itself instead.`,
          `${at}.id`,
          'invalid_value',
        );
      }
      entry = stored;
    }
    // An easy input message may leave out `type`.
    const type = entry.type ?? (entry.role === undefined ? undefined : 'message');
    switch (type) {
      case 'message': {
        checkAnswered(`'${at}'`, at);
        const role = entry.role;
        if (role === 'assistant') {
          const text = textOf(entry.content, `${at}.content`, ['output_text', 'refusal', 'input_text']);
          // A second message of the same turn (text after text) joins it.
          if (turn !== undefined && turn.toolCalls === undefined) turn.content += text;
          else {
            turn = { role: 'assistant', content: text };
            messages.push(turn);
          }
          return;
        }
        turn = undefined;
        if (role === 'user') messages.push({ role: 'user', content: userContent(entry.content, `${at}.content`) });
        else if (role === 'system' || role === 'developer') messages.push({ role: 'system', content: textOf(entry.content, `${at}.content`, ['input_text']) });
        else {
          throw invalidRequest(`Invalid '${at}.role': ${JSON.stringify(role ?? null)}. Expected 'user', 'assistant', 'system' or 'developer'.`, `${at}.role`, 'invalid_value');
        }
        return;
      }
      case 'function_call':
        addCall({ id: callIdOf(entry, at), name: callNameOf(entry, at), arguments: argumentsOf(entry.arguments, `${at}.arguments`) });
        return;
      case 'custom_tool_call': {
        const input = entry.input;
        if (typeof input !== 'string') throw invalidRequest(`Missing required parameter: '${at}.input'.`, `${at}.input`, 'missing_required_parameter');
        addCall({ id: callIdOf(entry, at), name: callNameOf(entry, at), arguments: { [CUSTOM_TOOL_INPUT]: input } });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = callIdOf(entry, at);
        const toolName = open.get(callId);
        if (toolName === undefined) {
          throw invalidRequest(`No tool call found for function call output with call_id ${callId}.`, `${at}.call_id`, 'invalid_value');
        }
        open.delete(callId);
        messages.push({ role: 'tool', toolCallId: callId, toolName, content: outputText(entry.output, `${at}.output`) });
        if (open.size === 0) turn = undefined;
        return;
      }
      case 'reasoning':
        // Reasoning is the model's own; replaying it is not needed for any provider here.
        return;
      default:
        throw unsupported(
          `Input items of type ${JSON.stringify(type ?? null)}`,
          `${at}.type`,
          "Send 'message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output' or 'reasoning' items.",
        );
    }
  };
  raw.forEach((entry: unknown, i) => addItem(entry, `input[${i}]`));
  checkAnswered('the end of input', 'input');
  if (messages.length === 0) throw invalidRequest("Invalid 'input': no messages. Send at least one message.", 'input', 'empty_array');
  return messages;
}
