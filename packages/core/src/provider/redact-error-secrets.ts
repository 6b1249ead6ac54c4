/** What stands where a secret was. */
const REDACTED = '[redacted]';

/** Shorter values are left alone: they would redact ordinary words. */
const MIN_SECRET_LENGTH = 8;

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}

/**
 * Replaces every secret (an API key, a token from a header) in the message and stack of
 * `error` and of each error in its `cause` chain with `[redacted]`, in place, and returns
 * `error`. A server or a proxy may echo the credential it was sent (`Incorrect API key
 * provided: sk-…`), and the error of a provider is logged by whoever catches it. Secrets
 * shorter than 8 characters are not redacted.
 */
export function redactErrorSecrets<E>(error: E, secrets: readonly (string | undefined)[]): E {
  const used = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_LENGTH);
  if (used.length === 0) return error;
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    const message = redactText(current.message, used);
    if (message !== current.message) current.message = message;
    if (typeof current.stack === 'string') {
      const stack = redactText(current.stack, used);
      if (stack !== current.stack) current.stack = stack;
    }
    current = current.cause;
  }
  return error;
}
