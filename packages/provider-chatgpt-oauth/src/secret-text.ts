import { createSecretRedactor } from '@toolwire/core/provider';
import type { SecretRedactor } from '@toolwire/core/provider';

const REDACTED = '[redacted]';

/**
 * A redactor for `secrets`: each in every spelling a server echoes (any case,
 * percent-encoded, JSON-escaped, in base64, cut; see `createSecretRedactor` in
 * `@toolwire/core/provider`), then anything shaped like a JWT (`eyJ…` with three base64url
 * parts), so that a token the server echoes back is hidden even when this process never saw
 * it. Always runs on the whole text: cut afterwards, never before (a secret straddling a
 * cut would leak its prefix).
 */
export function secretRedactor(secrets: readonly (string | undefined)[]): SecretRedactor {
  const redact = createSecretRedactor(secrets);
  return (text, maxChars) => redactJwtLike(redact(text, maxChars));
}

/** `text` with `secrets` redacted, as `secretRedactor(secrets)` does. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  return secretRedactor(secrets)(text);
}

/**
 * Redacts the whole text, then shortens it to `maxChars` (with an ellipsis). The one way
 * to turn server- or user-supplied text into a message.
 */
export function boundedSecretFreeText(text: string, secrets: readonly (string | undefined)[], maxChars: number): string {
  const redacted = redactSecrets(text, secrets);
  return redacted.length <= maxChars ? redacted : `${redacted.slice(0, maxChars)}…`;
}

/** The most of an error body read from a server; the rest is discarded unread. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads at most `maxBytes` of a response body as UTF-8 and cancels the rest, so an
 * 8 MB error page costs 64 KiB. `truncated` says whether bytes were left unread, or the
 * body broke off (a reset): what came before it is the text, since a message about the
 * failed request says more than `TypeError: terminated`. An abort still throws.
 *
 * `completeJsonGraceMs`: once what was read is a whole JSON object, the body's end is awaited
 * only this long; then the body is cancelled (its connection closed) and the text taken as it
 * is, not truncated. A server or proxy that never ends a complete answer cannot hold the
 * reader until its deadline.
 */
export async function readBoundedText(
  response: Response,
  maxBytes: number = MAX_ERROR_BODY_BYTES,
  options: { completeJsonGraceMs?: number } = {},
): Promise<{ text: string; truncated: boolean }> {
  const body = response.body;
  if (body === null) return { text: '', truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  let cut = false;
  const grace = options.completeJsonGraceMs;
  try {
    for (;;) {
      const read = reader.read();
      const last = chunks.at(-1);
      const next = grace !== undefined && last !== undefined && endsWithBrace(last) && isJsonObject(chunks) ? await withinGrace(read, grace) : await read;
      if (next === 'grace-over') {
        cut = true;
        break;
      }
      const { done, value } = next;
      if (done) break;
      const room = maxBytes - size;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        size += room;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch (error) {
    // undici fails a read of a body whose connection broke with `TypeError: terminated`.
    if (!(error instanceof TypeError)) throw error;
    truncated = true;
  } finally {
    if (truncated || cut) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  // `fatal: false`: a multi-byte character cut at the limit becomes U+FFFD, not an error.
  return { text: new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)), truncated };
}

/** Whether `chunk` ends with `}` and, at most, blank space after it. */
function endsWithBrace(chunk: Uint8Array): boolean {
  for (let i = chunk.byteLength - 1; i >= 0; i--) {
    const byte = chunk[i];
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7d;
  }
  return false;
}

/** Whether the bytes read so far are one whole JSON object (asked only when they end with `}`). */
function isJsonObject(chunks: readonly Uint8Array[]): boolean {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The read's result, or `'grace-over'` when it has not settled within `ms`. */
async function withinGrace<T>(read: Promise<T>, ms: number): Promise<T | 'grace-over'> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<'grace-over'>((resolve) => {
    timer = setTimeout(() => resolve('grace-over'), ms);
  });
  try {
    return await Promise.race([read, over]);
  } finally {
    clearTimeout(timer);
  }
}

const MIN_JWT_LENGTH = 20;

/** True for a base64url character (`A–Z a–z 0–9 - _`). */
function isBase64Url(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45 || code === 95;
}

/**
 * Replaces `eyJ<b64url>.<b64url>.<b64url?>` runs with `[redacted]`. One forward scan (each
 * character is looked at a bounded number of times), no regex.
 */
function redactJwtLike(text: string): string {
  let index = text.indexOf('eyJ');
  if (index < 0) return text;
  let out = '';
  let copied = 0;
  while (index >= 0) {
    // No word boundary is required before `eyJ`: text glued to a token must not shield it.
    let end = index;
    let dots = 0;
    let segment = 0;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (isBase64Url(code)) {
        segment++;
        end++;
      } else if (code === 46 && dots < 2 && segment > 0) {
        dots++;
        segment = 0;
        end++;
      } else {
        break;
      }
    }
    // header.payload.signature (the signature may be empty with `alg: none`); a real
    // header alone is longer than 16 characters.
    const valid = dots === 2 && end - index >= MIN_JWT_LENGTH;
    if (valid) {
      out += text.slice(copied, index) + REDACTED;
      copied = end;
      index = text.indexOf('eyJ', end);
    } else {
      index = text.indexOf('eyJ', Math.max(end, index + 1));
    }
  }
  return out + text.slice(copied);
}
