import { createSecretRedactor } from './secret-redactor.ts';
import type { SecretRedactor } from './secret-redactor.ts';

/** How far down a `cause` chain, and into the data an error carries, redaction goes. */
const MAX_CAUSES = 16;
const MAX_DATA_DEPTH = 8;
const MAX_DATA_VALUES = 10_000;

/**
 * Replaces every secret (an API key, a token from a header) with `[redacted]`, in place, in
 * `error` and each error of its `cause` chain: the message, the stack, and the strings among
 * the data the error carries (its own fields, such as `code`, and the plain objects and
 * arrays under them, such as the SDK's parsed error body, and response `Headers`, replaced
 * by a redacted copy): whatever a logger that prints the error would show. Every spelling
 * `createSecretRedactor` knows is covered (any case, percent-encoded, JSON-escaped, inside
 * a Basic credential, cut). Returns `error`. A server
 * or a proxy may echo the credential it was sent (`Incorrect API key provided: sk-…`), and
 * the error of a provider is logged by whoever catches it. Secrets shorter than 8
 * characters are not redacted.
 */
export function redactErrorSecrets<E>(error: E, secrets: readonly (string | undefined)[] | SecretRedactor): E {
  const redact = remembering(typeof secrets === 'function' ? secrets : createSecretRedactor(secrets));
  const budget = { values: MAX_DATA_VALUES };
  const seen = new Set<object>();
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current instanceof Error && !seen.has(current); depth++) {
    seen.add(current);
    const message = current.message;
    // Read before the message changes: V8 writes a stack out on first read, from the message then.
    const stack = current.stack;
    const cleanMessage = typeof message === 'string' ? redact(message) : message;
    // An own data property, whatever the prototype holds (a `DOMException`'s message is a getter).
    if (cleanMessage !== message) define(current, 'message', cleanMessage);
    if (typeof stack === 'string') {
      const cleanStack = redactStack(stack, message, cleanMessage, redact);
      if (cleanStack !== stack) define(current, 'stack', cleanStack);
    }
    redactFields(current, redact, 0, seen, budget);
    current = current.cause;
  }
  return error;
}

/**
 * A stack begins with the message it was made with (`Name: message\n    at …`): a long
 * message is not read twice (an upstream's error body is the message of the SDK's error, the
 * body's `message` and both stacks: megabytes, four times).
 */
function redactStack(stack: string, message: unknown, cleanMessage: unknown, redact: SecretRedactor): string {
  if (typeof message !== 'string' || typeof cleanMessage !== 'string' || message.length < LONG_TEXT) return redact(stack);
  const at = stack.indexOf(message);
  if (at < 0) return redact(stack);
  return redact(stack.slice(0, at)) + cleanMessage + redact(stack.slice(at + message.length));
}

/** Texts this long are remembered with their redaction, for the copies an error holds of them. */
const LONG_TEXT = 1024;

function remembering(redact: SecretRedactor): SecretRedactor {
  const remembered = new Map<string, string>();
  return (text) => {
    if (text.length < LONG_TEXT) return redact(text);
    let clean = remembered.get(text);
    if (clean === undefined) {
      clean = redact(text);
      remembered.set(text, clean);
    }
    return clean;
  };
}

/** Redacts the strings among the own enumerable fields of `value`, into plain objects and arrays. */
function redactFields(value: object, redact: SecretRedactor, depth: number, seen: Set<object>, budget: { values: number }): void {
  if (depth >= MAX_DATA_DEPTH) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (--budget.values < 0) return;
    const field = record[key];
    if (typeof field === 'string') {
      const clean = redact(field);
      if (clean !== field) define(record, key, clean);
    } else if (field instanceof Headers) {
      // A response's headers (the SDK's `APIError.headers`) are read-only: a copy takes their place.
      const clean = redactHeaders(field, redact);
      if (clean !== field) define(record, key, clean);
    } else if (typeof field === 'object' && field !== null && !seen.has(field) && !(field instanceof Error) && isPlainData(field)) {
      seen.add(field);
      redactFields(field, redact, depth + 1, seen, budget);
    }
  }
}

function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** `headers`, or a copy with the secrets redacted from its values when it holds any. */
function redactHeaders(headers: Headers, redact: SecretRedactor): Headers {
  let copy: Headers | undefined;
  for (const [name, value] of headers) {
    const clean = redact(value);
    if (clean === value) continue;
    copy ??= new Headers(headers);
    copy.set(name, clean);
  }
  return copy ?? headers;
}

function define(target: object, key: string, value: unknown): void {
  try {
    Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: Object.prototype.propertyIsEnumerable.call(target, key) });
  } catch {
    // A frozen object keeps its field: nothing else can be done with it.
  }
}
