import { jsonTextDepth } from '@toolwire/core';
import type { GatewayError } from './gateway-error.ts';
import { invalidRequest } from './gateway-error.ts';

/**
 * Deepest nesting of objects and arrays a request may have, in its body and in the JSON
 * text of replayed tool-call arguments. Real tool schemas stay far below it (OpenAI's strict
 * mode allows 10 levels); deeper input would overflow the stack of the recursive code after
 * the parser (schema compilation, validation, serialisation) and come back as a 5xx.
 */
export const MAX_JSON_DEPTH = 64;

const tooDeep = (where: string, param: string | null): GatewayError =>
  invalidRequest(
    `${where} nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep. Flatten the structure (tool schemas, arguments, message content).`,
    param,
    'nesting_too_deep',
  );

/** A 400 `nesting_too_deep` when a raw request body nests deeper than `MAX_JSON_DEPTH`. */
export function checkJsonTextDepth(text: string): void {
  if (jsonTextDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep('The request body', null);
}

/**
 * A 400 `nesting_too_deep` when a parsed request nests deeper than `MAX_JSON_DEPTH`, or when
 * an `arguments` string (a replayed tool call) holds JSON that does. The error names the
 * top-level field. The recursion stops at `MAX_JSON_DEPTH`, so the check itself cannot
 * overflow the stack.
 */
export function checkJsonDepth(body: unknown): void {
  if (typeof body === 'object' && body !== null) visit(body, 0, null);
}

// Visits in the order of a stack of pending values (last child first), as the check always
// has, so that a body with several faults still gets the same error.
function visit(value: object, depth: number, field: string | null): void {
  if (depth + 1 > MAX_JSON_DEPTH) throw tooDeep(field === null ? 'The request' : `'${field}'`, field);
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) visit(item, depth + 1, field);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (const key of keys) {
    const child = record[key];
    if (key === 'arguments' && typeof child === 'string' && jsonTextDepth(child, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      const top = field ?? key;
      throw tooDeep(`A tool call's 'arguments' in '${top}'`, top);
    }
  }
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    const child = record[key];
    if (typeof child === 'object' && child !== null) visit(child, depth + 1, field ?? key);
  }
}
