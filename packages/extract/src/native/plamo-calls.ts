import { isRecord, jsonExtent, skipSpace, tryJson } from './json-extent.ts';
import { Finder } from './native-call.ts';
import type { NativeCall } from './native-call.ts';

const tag = (word: string): string => `<|plamo:${word}:plamo|>`;
const REQUEST = tag('begin_tool_request');
const REQUEST_END = tag('end_tool_request');
const NAME = tag('begin_tool_name');
const NAME_END = tag('end_tool_name');
const ARGUMENTS = tag('begin_tool_arguments');
const ARGUMENTS_END = tag('end_tool_arguments');
const MAX_NAME = 300;

/**
 * PLaMo 3 calls in a `<|plamo:begin_tool_requests:plamo|>` block (`text[from, to)`): per call
 * `<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>`
 * `<|plamo:begin_tool_arguments:plamo|>{…}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`.
 * Arguments that are not one JSON object drop the call; a call cut off ends the reading.
 */
export function parsePlamoCalls(text: string, from: number, to: number): NativeCall[] {
  const calls: NativeCall[] = [];
  const requests = new Finder(text, REQUEST, to);
  let pos = from;
  while (pos < to) {
    const start = requests.next(pos);
    if (start < 0) break;
    const nameAt = skipSpace(text, start + REQUEST.length, to);
    if (!text.startsWith(NAME, nameAt)) {
      pos = start + REQUEST.length;
      continue;
    }
    const nameEnd = text.indexOf(NAME_END, nameAt + NAME.length);
    if (nameEnd < 0 || nameEnd >= to || nameEnd - nameAt > MAX_NAME) break;
    const name = text.slice(nameAt + NAME.length, nameEnd).trim();
    const argsAt = skipSpace(text, nameEnd + NAME_END.length, to);
    if (!text.startsWith(ARGUMENTS, argsAt)) break;
    const argsStart = argsAt + ARGUMENTS.length;
    const argsEnd = jsonExtent(text, argsStart, to);
    if (argsEnd < 0) break;
    let end = skipSpace(text, argsEnd, to);
    if (!text.startsWith(ARGUMENTS_END, end)) break;
    end = skipSpace(text, end + ARGUMENTS_END.length, to);
    if (text.startsWith(REQUEST_END, end)) end += REQUEST_END.length;
    const parsed = tryJson(text.slice(argsStart, argsEnd));
    calls.push({ name, args: parsed !== undefined && isRecord(parsed.value) ? parsed.value : undefined, end });
    pos = end;
  }
  return calls;
}
