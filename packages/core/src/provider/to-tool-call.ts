import { parseArguments } from '../parse-arguments.ts';
import type { ToolCall } from '../types/tool-call.ts';

/** A finished call as a provider received it: its argument text (or the object some wire formats send). */
export interface ToolCallInput {
  id: string;
  name: string;
  /** The argument text, or an already decoded value (Ollama sends an object). */
  rawArguments: string | Record<string, unknown> | null | undefined;
  /** The response hit its output-token limit while this call was being written. */
  truncated?: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The one rule every provider uses to turn a finished call's arguments into a `ToolCall`:
 * an object or `""` (or nothing) is used as is (`{}`); a JSON object text is parsed; any
 * other text (JSON that is not an object, `q="x"`, positional values) goes through
 * `parseArguments`. When that fails too, or the call was cut off by the token limit, the
 * call carries `invalid`, so the model is answered with a `validation_error` instead of
 * the turn crashing.
 *
 * @example toToolCall({ id: 'call_1', name: 'search', rawArguments: '{"q":"x"}' })
 */
export function toToolCall(input: ToolCallInput): ToolCall {
  const { id, name } = input;
  const raw = input.rawArguments;
  const rawText = typeof raw === 'string' ? raw : raw === null || raw === undefined ? '' : JSON.stringify(raw);
  if (input.truncated === true) {
    return invalidToolCall(
      { id, name, rawArguments: rawText },
      `The arguments of "${name}" were cut off because the response reached its output token limit. ` +
        'Call the tool again with complete arguments (or raise maxOutputTokens).',
    );
  }
  if (isPlainObject(raw)) return { id, name, arguments: raw };
  if (rawText.trim() === '') return { id, name, arguments: {} };
  try {
    const parsed: unknown = JSON.parse(rawText);
    if (isPlainObject(parsed)) return { id, name, arguments: parsed };
  } catch {
    // Not JSON: models also write `q="x"` or positional values; parseArguments reads those.
  }
  try {
    return { id, name, arguments: parseArguments(rawText) };
  } catch (error) {
    return invalidToolCall(
      { id, name, rawArguments: rawText },
      `The arguments of "${name}" could not be parsed (${describe(error)}). ` + 'Call the tool again with a JSON object that matches its parameters.',
    );
  }
}

/** A call whose arguments cannot be used: the tool loop answers the model with `message` instead of running the tool. */
export function invalidToolCall(call: { id: string; name: string; rawArguments: string }, message: string): ToolCall {
  return { id: call.id, name: call.name, arguments: {}, invalid: { rawArguments: call.rawArguments, message } };
}
