import { isRecord, tryJson } from './json-extent.ts';
import type { NativeCall } from './native-call.ts';

/**
 * The Hermes call in a `<tool_call>` block read on its own (`text[from, to)`, see
 * `readsHermesFallback`): one JSON object `{"name": …, "arguments": {…}}`, as `renderToolCall`
 * writes it (arguments written as a JSON string are read too). Undefined when the body is not
 * such an object; arguments that are no object drop the call.
 */
export function parseHermesCall(text: string, from: number, to: number): Omit<NativeCall, 'end'> | undefined {
  const body = tryJson(text.slice(from, to));
  if (body === undefined || !isRecord(body.value)) return undefined;
  const { name } = body.value;
  if (typeof name !== 'string' || !Object.hasOwn(body.value, 'arguments')) return undefined;
  let args = body.value.arguments;
  if (typeof args === 'string') args = tryJson(args)?.value;
  return { name, args: isRecord(args) ? args : undefined };
}
