import { ProviderError } from '@toolwire/core';
import type { ChatCompletion } from 'openai/resources/chat/completions';

/** A JSON media type, as the SDK's own parser tells one (`application/json`, `…+json`). */
function isJsonMediaType(contentType: string | null): boolean {
  // What every server sends, told without taking the header apart.
  if (contentType?.startsWith('application/json') === true) return true;
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType.includes('application/json') || mediaType.endsWith('+json');
}

/**
 * The body of a successful non-streamed Chat Completions response (the SDK has already made
 * the call: auth, retries, status errors), read and parsed here rather than through the
 * SDK's per-call parse chain (an extra promise chain, a timer and a race per call). A body
 * that is not JSON, or empty, is a `ProviderError` that says what came back; JSON that does
 * not parse throws the parser's `SyntaxError`, as the SDK's parse did. The body's read is
 * bounded by the fetch (its body or idle timeout) and by the request's abort signal.
 */
export async function readChatCompletion(response: Response): Promise<ChatCompletion> {
  const contentType = response.headers.get('content-type');
  const text = await response.text();
  if (!isJsonMediaType(contentType) || text === '') {
    const what = text === '' ? 'an empty body' : `a body of type ${contentType ?? '(none)'}`;
    throw new ProviderError({
      provider: 'openai',
      status: response.status,
      message: `The server answered the chat completion with ${what} (HTTP ${response.status}), not a JSON completion. Check that baseURL points at an OpenAI-compatible API.`,
    });
  }
  return JSON.parse(text) as ChatCompletion;
}
