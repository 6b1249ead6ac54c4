/** The longest error message the gateway passes on or logs, in characters. */
export const MAX_ERROR_MESSAGE_LENGTH = 8192;

/** `text` cut to `max` characters, saying how much was left out. */
export function boundText(text: string, max: number = MAX_ERROR_MESSAGE_LENGTH): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
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
