import { createSecretRedactor, cutText, MIN_SECRET_LENGTH } from './secret-redactor.ts';
import type { SecretRedactor } from './secret-redactor.ts';

/** How far down a `cause` chain, and into the data an error carries, redaction goes. */
const MAX_CAUSES = 16;
const MAX_DATA_DEPTH = 8;
const MAX_DATA_VALUES = 10_000;

/**
 * The most of one text an error keeps (64 Ki characters, a long page of it; the gateway shows
 * 8 Ki): an upstream's error body becomes the message of the error its SDK throws, megabytes
 * of it (up to the 16 MiB `maxMessageBytes`) when the upstream is broken or hostile, which
 * nobody reads whole and which would cost every failing request a long block of the event
 * loop to redact. The start is kept, redacted with what follows it as context.
 */
export const MAX_ERROR_TEXT_CHARS = 64 * 1024;

/**
 * How many characters all the texts of one error (its causes and data included) may make the
 * redactor read, about. Past it, a text long enough to hold a secret gives way to a note of its
 * length: only an error carrying megabytes in many texts gets there.
 */
const MAX_ERROR_READ_CHARS = 1024 * 1024;

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
 *
 * Each text keeps its first `MAX_ERROR_TEXT_CHARS` (64 Ki) characters, redacted with what
 * follows them as context, then `… (N more characters)`; all texts of one error are read
 * within about 1 Mi characters (past that, a long one becomes `[N characters not shown]`),
 * so a megabytes-long error body costs what its start costs.
 */
export function redactErrorSecrets<E>(error: E, secrets: readonly (string | undefined)[] | SecretRedactor): E {
  const budget = { values: MAX_DATA_VALUES, chars: MAX_ERROR_READ_CHARS };
  const redact = bounded(typeof secrets === 'function' ? secrets : createSecretRedactor(secrets), budget);
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
 * body's `message` and both stacks), and the frames after it stay when it is cut.
 */
function redactStack(stack: string, message: unknown, cleanMessage: unknown, redact: SecretRedactor): string {
  if (typeof message !== 'string' || typeof cleanMessage !== 'string' || message.length < LONG_TEXT) return redact(stack);
  // Found by its ends, not searched for whole: comparing megabytes costs what redacting them would.
  const at = stack.indexOf(message.slice(0, LONG_TEXT));
  const end = at + message.length;
  if (at < 0 || end > stack.length || !stack.startsWith(message.slice(-LONG_TEXT), end - LONG_TEXT)) return redact(stack);
  return redact(stack.slice(0, at)) + cleanMessage + redact(stack.slice(end));
}

/** Texts this short are read whatever the budget has left. */
const ALWAYS_READ = 64;

/** Texts this long are remembered with their redaction, for the copies an error holds of them. */
const LONG_TEXT = 1024;

type Budget = { values: number; chars: number };

/**
 * `redact` for the texts of one error: each cut to `MAX_ERROR_TEXT_CHARS`, long ones
 * remembered with their redaction, all of them within the error's reading budget.
 */
function bounded(redact: SecretRedactor, budget: Budget): SecretRedactor {
  const remembered = new Map<string, string>();
  const once = (text: string): string => {
    if (text.length < MIN_SECRET_LENGTH) return text;
    // Short texts (a code, a type, an id) cost little, however many there are (`MAX_DATA_VALUES`).
    if (budget.chars <= 0 && text.length > ALWAYS_READ) return `[${text.length} characters not shown]`;
    // What the redactor may read of it: the kept start, and as much again for context.
    budget.chars -= Math.min(text.length, 2 * MAX_ERROR_TEXT_CHARS);
    // A redactor of the caller's own may not know `maxChars`: its text is cut after it.
    return cutText(redact(text, MAX_ERROR_TEXT_CHARS), MAX_ERROR_TEXT_CHARS + CUT_NOTE_ROOM);
  };
  return (text) => {
    if (text.length < LONG_TEXT) return once(text);
    let clean = remembered.get(text);
    if (clean === undefined) {
      clean = once(text);
      remembered.set(text, clean);
    }
    return clean;
  };
}

/**
 * Room past `MAX_ERROR_TEXT_CHARS` for what a redacted start may hold beyond it: a redaction
 * across the cut and the note of what was left out.
 */
const CUT_NOTE_ROOM = 256;

/** Redacts the strings among the own enumerable fields of `value`, into plain objects and arrays. */
function redactFields(value: object, redact: SecretRedactor, depth: number, seen: Set<object>, budget: Budget): void {
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
