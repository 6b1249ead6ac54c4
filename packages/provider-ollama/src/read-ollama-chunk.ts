import { isPlainObject } from './ollama-chat-messages.ts';
import type { OllamaChatChunk } from './ollama-wire.ts';

const isOptional = (value: unknown, type: 'string' | 'boolean'): boolean => value === undefined || typeof value === type;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * An /api/chat answer or stream line as the wire types say it is: a field of another type
 * (`content: 42`, `tool_calls: {…}`, a `message` that is not an object, a negative count) is
 * left out, so that nothing downstream passes a number on as text, or iterates an object.
 * A line that conforms (every line Ollama writes) is returned as it is, without a copy.
 */
export function readOllamaChunk(raw: unknown): OllamaChatChunk {
  if (!isPlainObject(raw)) return {};
  if (conforms(raw)) return raw;
  const chunk: OllamaChatChunk = {};
  if (typeof raw.model === 'string') chunk.model = raw.model;
  const message = raw.message;
  if (isPlainObject(message)) {
    const kept: NonNullable<OllamaChatChunk['message']> = {};
    if (typeof message.role === 'string') kept.role = message.role;
    if (typeof message.content === 'string') kept.content = message.content;
    if (typeof message.thinking === 'string') kept.thinking = message.thinking;
    if (Array.isArray(message.tool_calls)) kept.tool_calls = message.tool_calls as unknown[];
    chunk.message = kept;
  }
  if (typeof raw.done === 'boolean') chunk.done = raw.done;
  if (typeof raw.done_reason === 'string') chunk.done_reason = raw.done_reason;
  if (isCount(raw.prompt_eval_count)) chunk.prompt_eval_count = raw.prompt_eval_count;
  if (isCount(raw.eval_count)) chunk.eval_count = raw.eval_count;
  return chunk;
}

function conforms(raw: Record<string, unknown>): boolean {
  const message = raw.message;
  if (message !== undefined) {
    if (!isPlainObject(message)) return false;
    if (!isOptional(message.role, 'string') || !isOptional(message.content, 'string') || !isOptional(message.thinking, 'string')) return false;
    if (message.tool_calls !== undefined && !Array.isArray(message.tool_calls)) return false;
  }
  return (
    isOptional(raw.model, 'string') &&
    isOptional(raw.done, 'boolean') &&
    isOptional(raw.done_reason, 'string') &&
    (raw.prompt_eval_count === undefined || isCount(raw.prompt_eval_count)) &&
    (raw.eval_count === undefined || isCount(raw.eval_count))
  );
}
