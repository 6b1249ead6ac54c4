import { parseArguments } from '@toolwire/core';
import type { ToolCall } from '@toolwire/core';

/** What a finished call's argument text becomes. */
export interface ToolCallInput {
  id: string;
  name: string;
  rawArguments: string;
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
 * Turns a finished call's argument text into a `ToolCall`. `""` is `{}`; JSON that is not
 * an object, and text that is not JSON, go through `parseArguments`; when that fails too
 * (or the call was cut off) the call carries `invalid`, so the model gets a
 * `validation_error` answer instead of the turn crashing.
 */
export function toToolCall(input: ToolCallInput): ToolCall {
  const { id, name, rawArguments } = input;
  if (input.truncated === true) {
    return invalidCall(
      input,
      `The arguments of "${name}" were cut off because the response reached its output token limit. ` +
        'Call the tool again with complete arguments (or raise maxOutputTokens).',
    );
  }
  if (rawArguments.trim() === '') return { id, name, arguments: {} };
  try {
    const parsed: unknown = JSON.parse(rawArguments);
    if (isPlainObject(parsed)) return { id, name, arguments: parsed };
  } catch {
    // Not JSON: models also write `q="x"` or positional values; parseArguments reads those.
  }
  try {
    return { id, name, arguments: parseArguments(rawArguments) };
  } catch (error) {
    return invalidCall(
      input,
      `The arguments of "${name}" could not be parsed (${describe(error)}). ` +
        'Call the tool again with a JSON object that matches its parameters.',
    );
  }
}

/** A call whose arguments cannot be used: the model is answered with `message`. */
function invalidCall(input: ToolCallInput, message: string): ToolCall {
  return { id: input.id, name: input.name, arguments: {}, invalid: { rawArguments: input.rawArguments, message } };
}
