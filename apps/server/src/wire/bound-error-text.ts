/** The longest error message the gateway passes on or logs, in characters. */
export const MAX_ERROR_MESSAGE_LENGTH = 8192;

/** `text` cut to `max` characters, saying how much was left out. */
export function boundText(text: string, max: number = MAX_ERROR_MESSAGE_LENGTH): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max + alreadyLeftOut(text.slice(max))} more characters)`;
}

/**
 * How many characters a text said it had left out already, at its end: the providers keep
 * the first 64 Ki characters of an upstream's error text (`… (N more characters)`), so what
 * the client reads counts from the upstream's text, not from that start.
 */
function alreadyLeftOut(text: string): number {
  // Its last one: a hint or a code may stand after it.
  const end = text.lastIndexOf(' more characters)');
  const start = end < 0 ? -1 : text.lastIndexOf('… (', end);
  if (start < 0 || end - start > 20) return 0;
  const digits = text.slice(start + 3, end);
  return /^\d{1,15}$/u.test(digits) ? Number(digits) : 0;
}

/**
 * Cuts the messages of an error and of its causes to `MAX_ERROR_MESSAGE_LENGTH`, in place. An
 * upstream's error body becomes the message of the error its SDK throws (a 10 MB page, all of
 * it), and that message would go to the client in the envelope and into the log once per
 * error in the chain, stack included. A stack not yet formatted takes the cut message; one
 * already formatted has its first line cut too.
 */
export function boundErrorText(error: unknown): void {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const message = current.message;
    if (typeof message === 'string' && message.length > MAX_ERROR_MESSAGE_LENGTH) {
      const bounded = boundText(message);
      Object.defineProperty(current, 'message', { value: bounded, configurable: true, writable: true });
      const stack = current.stack;
      if (typeof stack === 'string' && stack.length > MAX_ERROR_MESSAGE_LENGTH * 2) {
        const at = stack.indexOf('\n    at ');
        Object.defineProperty(current, 'stack', { value: boundText(at < 0 ? stack : stack.slice(0, at)) + (at < 0 ? '' : stack.slice(at)), configurable: true, writable: true });
      }
    }
    current = current.cause;
  }
}
