import { isRecord, jsonExtent, skipSpace, tryJson } from './json-extent.ts';
import type { NativeCall } from './native-call.ts';

const NAME = '<|tool_call:name|>';
const ARGS = '<|tool_call:args|>';
const MAX_HEADER = 300;

/**
 * A Solar Open call in `text[from, to)` (after `<|tool_call:begin|>`, before `<|tool_call:end|>`):
 * `ID<|tool_call:name|>NAME<|tool_call:args|>{…}`. The id the model wrote is the call's id;
 * arguments that are not one JSON object drop the call.
 */
export function parseSolarOpenCall(text: string, from: number, to: number): NativeCall | undefined {
  const nameAt = text.indexOf(NAME, from);
  if (nameAt < 0 || nameAt >= to || nameAt - from > MAX_HEADER) return undefined;
  const argsAt = text.indexOf(ARGS, nameAt + NAME.length);
  if (argsAt < 0 || argsAt >= to || argsAt - nameAt > MAX_HEADER) return undefined;
  const id = text.slice(from, nameAt).trim();
  const name = text.slice(nameAt + NAME.length, argsAt).trim();
  const argsStart = skipSpace(text, argsAt + ARGS.length, to);
  const argsEnd = jsonExtent(text, argsStart, to);
  let args: Record<string, unknown> | undefined;
  // Only whitespace may follow the object before the end token.
  if (argsEnd >= 0 && text.charCodeAt(argsStart) === 0x7b && skipSpace(text, argsEnd, to) >= to) {
    const parsed = tryJson(text.slice(argsStart, argsEnd));
    if (parsed !== undefined && isRecord(parsed.value)) args = parsed.value;
  }
  const call: NativeCall = { name, args, end: to };
  if (id !== '') call.id = id;
  return call;
}
