import { createSecretRedactor, cutText, MIN_SECRET_LENGTH } from './secret-redactor.ts';
import type { SecretRedactor } from './secret-redactor.ts';

/**
 * How many errors (down a `cause` chain, in an `AggregateError`'s `errors`, in fields), how
 * deep into the data an error carries, and how many values of it, redaction reads; what lies
 * beyond is replaced by `[not shown]`.
 */
const MAX_ERRORS = 32;
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
 * `error`, each error of its `cause` chain, of an `AggregateError`'s `errors` and in its
 * fields: the message, the stack, and the strings among the data the error carries (its own
 * fields, such as `code`, and the plain objects and arrays under them, such as the SDK's
 * parsed error body, and response `Headers`, replaced by a redacted copy): whatever a logger
 * that prints the error would show. Every spelling `createSecretRedactor` knows is covered
 * (any case, percent-encoded, JSON-escaped, inside a Basic credential, cut). A server or a
 * proxy may echo the credential it was sent (`Incorrect API key provided: sk-…`), and the
 * error of a provider is logged by whoever catches it. Secrets shorter than 8 characters are
 * not redacted.
 *
 * Returns `error`, or a redacted copy of it (same prototype, same fields) when it cannot be
 * written (a frozen error): use what it returns. A cause that is a string or a plain object,
 * or a thrown string, is redacted too. What lies past its bounds (32 errors, data 8 levels
 * deep or 10 000 values) is replaced by `[not shown]`, never left as it was. Objects of other
 * classes (a `Map`, a buffer) are left as they are.
 *
 * Each text keeps its first `MAX_ERROR_TEXT_CHARS` (64 Ki) characters, redacted with what
 * follows them as context, then `… (N more characters)`; all texts of one error are read
 * within about 1 Mi characters (past that, a long one becomes `[N characters not shown]`),
 * so a megabytes-long error body costs what its start costs.
 */
export function redactErrorSecrets<E>(error: E, secrets: readonly (string | undefined)[] | SecretRedactor): E {
  const budget = { values: MAX_DATA_VALUES, chars: MAX_ERROR_READ_CHARS, errors: MAX_ERRORS };
  const redact = bounded(typeof secrets === 'function' ? secrets : createSecretRedactor(secrets), budget);
  return new ErrorWalk(redact, budget).clean(error, 0) as E;
}

/** What stands for data past the walk's bounds (too deep, too many values, too many errors): left out, never left as it was. */
const NOT_SHOWN = '[not shown]';

/**
 * One error's walk: every value reached is cleaned in place where it can be written, or
 * replaced by a clean copy (a frozen error or body) in whatever holds it. Past the bounds,
 * data is replaced by `NOT_SHOWN`: what was not read is not shown either.
 */
class ErrorWalk {
  /** Each object reached, and what stands for it (itself, a clean copy, or `NOT_SHOWN`). */
  readonly #done = new Map<object, unknown>();

  readonly redact: SecretRedactor;
  readonly budget: Budget;

  constructor(redact: SecretRedactor, budget: Budget) {
    this.redact = redact;
    this.budget = budget;
  }

  /** `value` with its secrets taken out: the same object cleaned in place, or what takes its place. */
  clean(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (typeof value !== 'object' || value === null) return value;
    const done = this.#done.get(value);
    if (done !== undefined || this.#done.has(value)) return done;
    // A response's headers (the SDK's `APIError.headers`) are read-only: a copy takes their place.
    if (value instanceof Headers) return this.#settle(value, redactHeaders(value, this.redact));
    if (value instanceof Error) {
      if (--this.budget.errors < 0) return this.#settle(value, NOT_SHOWN);
      return this.#cleanError(value);
    }
    if (!isPlainData(value)) return value;
    if (depth >= MAX_DATA_DEPTH || this.budget.values <= 0) return this.#settle(value, NOT_SHOWN);
    this.#done.set(value, value);
    const outcome = this.#cleanFields(value, depth);
    // Too many values to read (a body of a million): the rest of it is not gone through either.
    if (outcome === 'exhausted') return this.#settle(value, NOT_SHOWN);
    if (outcome === 'written') return value;
    // Frozen (a body someone froze): a clean copy takes its place.
    const copy = copyOf(value);
    this.#done.set(value, copy);
    return this.#settle(value, this.#cleanFields(copy, depth, value) === 'exhausted' ? NOT_SHOWN : copy);
  }

  #settle(value: object, clean: unknown): unknown {
    this.#done.set(value, clean);
    return clean;
  }

  #cleanError(error: Error): unknown {
    this.#done.set(error, error);
    if (this.#cleanErrorTexts(error) && this.#cleanFields(error, 0) === 'written') return error;
    // Frozen, or a field that cannot be written: a clean copy (same prototype, same marks) takes its place.
    const copy = copyOf(error);
    this.#done.set(error, copy);
    this.#cleanErrorTexts(copy, error);
    this.#cleanFields(copy, 0, error);
    return copy;
  }

  /** The message and its copy in the stack; false when one of them could not be written. */
  #cleanErrorTexts(error: Error, from: Error = error): boolean {
    const message = read(from, 'message');
    // Read before the message changes: V8 writes a stack out on first read, from the message then.
    const stack = read(from, 'stack');
    const cleanMessage = typeof message === 'string' ? this.redact(message) : message;
    let written = true;
    // An own data property, whatever the prototype holds (a `DOMException`'s message is a getter).
    if (cleanMessage !== message || from !== error) written = define(error, 'message', cleanMessage);
    if (typeof stack === 'string') {
      const cleanStack = redactStack(stack, message, cleanMessage, this.redact);
      if (cleanStack !== stack || from !== error) written = define(error, 'stack', cleanStack) && written;
    }
    return written;
  }

  /**
   * Cleans the fields of `target` (read from `from`, of which it is a copy, or itself): the
   * own enumerable ones, and an error's `cause` and an `AggregateError`'s `errors`, which a
   * logger prints though they are not enumerable. Says whether every field could be written,
   * or the values ran out in plain data (an error's own fields past them become `NOT_SHOWN`).
   */
  #cleanFields(target: object, depth: number, from: object = target): 'written' | 'unwritable' | 'exhausted' {
    const record = from as Record<string, unknown>;
    const keys = Object.keys(from);
    if (from instanceof Error) {
      for (const key of ['cause', 'errors']) if (key in from && !keys.includes(key)) keys.push(key);
    }
    let written = true;
    for (const key of keys) {
      let field: unknown;
      try {
        field = record[key];
      } catch {
        // A getter that throws: a printer that reads it throws too, nothing shows.
        continue;
      }
      let clean: unknown;
      if (--this.budget.values >= 0) clean = this.clean(field, from instanceof Error ? depth : depth + 1);
      else if (!(from instanceof Error)) return 'exhausted';
      else clean = (typeof field === 'string' && field.length >= MIN_SECRET_LENGTH) || (typeof field === 'object' && field !== null) ? NOT_SHOWN : field;
      if (clean !== field || target !== from) written = define(target, key, clean) && written;
    }
    return written ? 'written' : 'unwritable';
  }
}

/** A writable copy of `value` with its own properties (symbols included: an error's `isInstance` marks). */
function copyOf<T extends object>(value: T): T {
  const copy = (Array.isArray(value) ? [] : Object.create(Object.getPrototypeOf(value) as object | null)) as T;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || (key === 'length' && Array.isArray(value))) continue;
    Object.defineProperty(copy, key, { ...descriptor, configurable: true, ...('value' in descriptor ? { writable: true } : {}) });
  }
  return copy;
}

/** `key` of `target`, or undefined when reading it throws. */
function read(target: object, key: string): unknown {
  try {
    return (target as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
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

type Budget = { values: number; chars: number; errors: number };

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

/** Whether `value` could be written to `key` of `target` (not to a frozen object). */
function define(target: object, key: string, value: unknown): boolean {
  try {
    Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: Object.prototype.propertyIsEnumerable.call(target, key) });
    return true;
  } catch {
    return false;
  }
}
