import type { Message, ToolCall, UserContentPart } from '@toolwire/core';
import { invalidRequest } from './gateway-error.ts';
import { MAX_TOOLS } from './parse-chat-tools.ts';
import { isObject, unsupported } from './request-fields.ts';

function textOfParts(parts: unknown[], param: string, allowRefusal: boolean): string {
  let text = '';
  parts.forEach((part: unknown, i) => {
    if (!isObject(part)) throw invalidRequest(`Invalid '${param}[${i}]': expected a content part object.`, `${param}[${i}]`, 'invalid_type');
    if (part.type === 'text' && typeof part.text === 'string') text += part.text;
    else if (allowRefusal && part.type === 'refusal' && typeof part.refusal === 'string') text += part.refusal;
    else throw invalidRequest(`Invalid '${param}[${i}]': only text parts are supported here.`, `${param}[${i}]`, 'invalid_value');
  });
  return text;
}

function parseUserContent(content: unknown, param: string): string | UserContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest(`Invalid '${param}': expected a string or an array of content parts.`, param, 'invalid_type');
  return content.map((part: unknown, i): UserContentPart => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) throw invalidRequest(`Invalid '${at}': expected a content part object.`, at, 'invalid_type');
    if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.type === 'image_url') {
      const image = part.image_url;
      const url = isObject(image) ? image.url : undefined;
      if (typeof url !== 'string') throw invalidRequest(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`, 'missing_required_parameter');
      return { type: 'image', image: url };
    }
    throw unsupported(`Content parts of type ${JSON.stringify(part.type ?? null)}`, `${at}.type`, "Send 'text' or 'image_url' parts.");
  });
}

function parseHistoryCall(raw: unknown, param: string): ToolCall {
  if (!isObject(raw)) throw invalidRequest(`Invalid '${param}': expected a tool call object.`, param, 'invalid_type');
  if (typeof raw.id !== 'string' || raw.id === '') throw invalidRequest(`Missing required parameter: '${param}.id'.`, `${param}.id`, 'missing_required_parameter');
  if (raw.type !== undefined && raw.type !== null && raw.type !== 'function') {
    throw unsupported(`Tool calls of type ${JSON.stringify(raw.type)}`, `${param}.type`, "Only 'function' calls can be replayed.");
  }
  const fn = raw.function;
  if (!isObject(fn) || typeof fn.name !== 'string') {
    throw invalidRequest(`Missing required parameter: '${param}.function.name'.`, `${param}.function.name`, 'missing_required_parameter');
  }
  const rawArgs = fn.arguments;
  let args: Record<string, unknown> = {};
  // `""` (and a missing value) in replayed history means no arguments.
  if (typeof rawArgs === 'string' && rawArgs.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawArgs);
    } catch {
      throw invalidRequest(`Invalid '${param}.function.arguments': not valid JSON. Send the arguments as a JSON object string.`, `${param}.function.arguments`, 'invalid_value');
    }
    if (!isObject(parsed)) {
      throw invalidRequest(`Invalid '${param}.function.arguments': expected a JSON object.`, `${param}.function.arguments`, 'invalid_value');
    }
    args = parsed;
  } else if (isObject(rawArgs)) {
    args = rawArgs;
  } else if (rawArgs !== undefined && rawArgs !== null && rawArgs !== '' && typeof rawArgs !== 'string') {
    throw invalidRequest(`Invalid '${param}.function.arguments': expected a JSON string.`, `${param}.function.arguments`, 'invalid_type');
  }
  return { id: raw.id, name: fn.name, arguments: args };
}

/**
 * Validates `messages` (roles, content parts, replayed tool calls and their answers) and
 * maps them to core messages. Throws a 400 `GatewayError` naming the first problem.
 */
export function parseMessages(raw: unknown): Message[] {
  if (raw === undefined || raw === null) throw invalidRequest("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(raw)) throw invalidRequest("Invalid 'messages': expected an array of messages.", 'messages', 'invalid_type');
  if (raw.length === 0) throw invalidRequest("Invalid 'messages': empty array. Expected an array with minimum length 1.", 'messages', 'empty_array');

  const messages: Message[] = [];
  // Calls waiting for their tool message, by id → index of the assistant message.
  const open = new Map<string, number>();
  let openSince = -1;
  const checkAnswered = (): void => {
    if (open.size === 0) return;
    const ids = [...open.keys()].join(', ');
    throw invalidRequest(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`,
      `messages.[${openSince}].tool_calls`,
      'invalid_value',
    );
  };

  raw.forEach((entry: unknown, i) => {
    const at = `messages.[${i}]`;
    if (!isObject(entry)) throw invalidRequest(`Invalid '${at}': expected a message object.`, at, 'invalid_type');
    const role = entry.role;
    if (role !== 'tool') checkAnswered();
    switch (role) {
      case 'system':
      case 'developer': {
        const content = entry.content;
        const text = typeof content === 'string' ? content : Array.isArray(content) ? textOfParts(content, `${at}.content`, false) : undefined;
        if (text === undefined) throw invalidRequest(`Invalid '${at}.content': expected a string.`, `${at}.content`, 'invalid_type');
        messages.push({ role: 'system', content: text });
        return;
      }
      case 'user':
        messages.push({ role: 'user', content: parseUserContent(entry.content, `${at}.content`) });
        return;
      case 'assistant': {
        // Replayed assistant messages may carry `refusal: null`, `annotations`, `audio: null`, `parsed`…: ignored.
        const content = entry.content;
        let text = '';
        if (typeof content === 'string') text = content;
        else if (Array.isArray(content)) text = textOfParts(content, `${at}.content`, true);
        else if (content !== undefined && content !== null) throw invalidRequest(`Invalid '${at}.content': expected a string or null.`, `${at}.content`, 'invalid_type');
        const rawCalls = entry.tool_calls;
        let toolCalls: ToolCall[] | undefined;
        if (Array.isArray(rawCalls) && rawCalls.length > 0) {
          if (rawCalls.length > MAX_TOOLS) throw invalidRequest(`Invalid '${at}.tool_calls': more than ${MAX_TOOLS} calls.`, `${at}.tool_calls`, 'array_above_max_length');
          toolCalls = rawCalls.map((call: unknown, j) => parseHistoryCall(call, `${at}.tool_calls[${j}]`));
          for (const call of toolCalls) open.set(call.id, i);
          openSince = i;
        } else if (rawCalls !== undefined && rawCalls !== null && !Array.isArray(rawCalls)) {
          throw invalidRequest(`Invalid '${at}.tool_calls': expected an array.`, `${at}.tool_calls`, 'invalid_type');
        }
        messages.push(toolCalls ? { role: 'assistant', content: text, toolCalls } : { role: 'assistant', content: text });
        return;
      }
      case 'tool': {
        const id = entry.tool_call_id;
        if (typeof id !== 'string' || !open.has(id)) {
          throw invalidRequest(
            "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'" +
              (typeof id === 'string' ? ` (no open call has the id '${id}').` : '.'),
            `${at}.role`,
            'invalid_value',
          );
        }
        const callIndex = open.get(id) ?? -1;
        open.delete(id);
        const assistant = messages.findLast((m, k) => k <= callIndex && m.role === 'assistant');
        const toolName = assistant?.role === 'assistant' ? assistant.toolCalls?.find((c) => c.id === id)?.name : undefined;
        const content = entry.content;
        const text = typeof content === 'string' ? content : Array.isArray(content) ? textOfParts(content, `${at}.content`, false) : undefined;
        if (text === undefined) throw invalidRequest(`Invalid '${at}.content': expected a string.`, `${at}.content`, 'invalid_type');
        messages.push(toolName === undefined ? { role: 'tool', toolCallId: id, content: text } : { role: 'tool', toolCallId: id, toolName, content: text });
        return;
      }
      case 'function':
        throw unsupported("Messages with the deprecated role 'function'", `${at}.role`, "Use role 'tool' with a 'tool_call_id'.");
      default:
        throw invalidRequest(
          `Invalid '${at}.role': ${JSON.stringify(role ?? null)}. Expected 'system', 'developer', 'user', 'assistant' or 'tool'.`,
          `${at}.role`,
          'invalid_value',
        );
    }
  });
  checkAnswered();
  return messages;
}
