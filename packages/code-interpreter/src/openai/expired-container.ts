import { ContainerExpiredError } from '../errors.ts';

// Reported bodies: 400 "Container is expired." (measured), 404 "Container has expired.",
// 400 "Container is not running.", and 400 "Expected container_id: cntr_…" when replayed
// history names an expired container (pydantic/pydantic-ai#7461). OpenAI sends no error
// code for these, so the message is all there is to match.
const EXPIRED_PHRASES = ['container is expired', 'container has expired', 'container is not running', 'expected container_id'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function findContainerId(text: string): string | undefined {
  const start = text.indexOf('cntr_');
  if (start < 0) return undefined;
  let end = start + 5;
  while (end < text.length && end - start < 64) {
    const c = text.charCodeAt(end);
    const idChar = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
    if (!idChar) break;
    end++;
  }
  return end > start + 5 ? text.slice(start, end) : undefined;
}

/**
 * Recognises OpenAI's "container expired" answers (an `openai` SDK `APIError`, a Toolwire
 * `ProviderError`, or anything with `status` 400/404 and such a message) and returns a
 * `ContainerExpiredError`; `undefined` for any other error.
 */
export function toContainerExpiredError(error: unknown, containerId?: string): ContainerExpiredError | undefined {
  if (ContainerExpiredError.isInstance(error)) return error;
  if (!isRecord(error)) return undefined;
  const status = typeof error.status === 'number' ? error.status : undefined;
  if (status !== 400 && status !== 404) return undefined;
  const message = typeof error.message === 'string' ? error.message : '';
  const lower = message.toLowerCase();
  if (!EXPIRED_PHRASES.some((phrase) => lower.includes(phrase))) return undefined;
  // The SDK prefixes the status ("400 Container is expired."); keep OpenAI's words only.
  const prefix = `${status} `;
  const providerMessage = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  return new ContainerExpiredError({
    containerId: containerId ?? findContainerId(message),
    status,
    providerMessage,
    cause: error,
  });
}
