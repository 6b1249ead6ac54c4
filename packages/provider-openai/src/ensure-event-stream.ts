import { ProviderError } from '@toolwire/core';
import { readJsonBodyText } from '@toolwire/core/provider';
import { DEFAULT_END_GRACE_MS } from './openai-client-context.ts';
import { isJsonMediaType, readChatCompletion, throwBodyError } from './read-chat-completion.ts';

/**
 * Checks that the answer to a streamed Chat Completions request is an event stream. A 200
 * with JSON (a proxy's or gateway's `{"error": …}`, or a server that ignored `stream: true`)
 * or a page is said as what it is: the error a JSON body carries becomes the SDK's error for
 * it, as for a non-streamed call (see `readChatCompletion`). Before, it was read as an empty
 * stream, "ended without a finish reason", and the server's own message was lost. Only a page
 * or JSON is refused: a response without a content type, or with another one (`text/plain`
 * from some servers), is read as a stream, as the SDK does.
 */
export async function ensureEventStream(response: Response, options: { endGraceMs?: number } = {}): Promise<void> {
  const contentType = response.headers.get('content-type');
  if (!isPageOrJson(contentType)) return;
  if (!isJsonMediaType(contentType)) {
    await response.body?.cancel().catch(() => undefined);
    throw new ProviderError({
      provider: 'openai',
      status: response.status,
      code: 'not_event_stream',
      message: `The server answered the streamed chat completion with a body of type ${contentType ?? '(none)'} (HTTP ${response.status}), not an event stream. Check that baseURL points at an OpenAI-compatible API.`,
    });
  }
  // Throws the error in the body, or says the JSON is no chat completion.
  await readChatCompletion(response, options);
  throw new ProviderError({
    provider: 'openai',
    status: response.status,
    code: 'not_event_stream',
    message:
      'The server answered a streamed chat completion with one JSON completion: it ignores `stream: true`. ' +
      'Use generate() with this server, or check that baseURL points at an OpenAI-compatible API that streams.',
  });
}

/**
 * The same check for a streamed Responses call, whose body the SDK's stream would read: a
 * 200 JSON `{"error": …}` is the error it carries, any other JSON or a page a `ProviderError`
 * (code `not_event_stream`) saying what came back, instead of a stream that "ended before
 * response.completed".
 */
export async function ensureResponsesEventStream(response: Response, options: { endGraceMs?: number } = {}): Promise<void> {
  const contentType = response.headers.get('content-type');
  if (contentType === null || !isPageOrJson(contentType)) return;
  let what = `a body of type ${contentType}`;
  if (isJsonMediaType(contentType)) {
    const text = await readJsonBodyText(response, { endGraceMs: options.endGraceMs ?? DEFAULT_END_GRACE_MS });
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    throwBodyError(data, response.headers);
    what = 'JSON';
  } else {
    await response.body?.cancel().catch(() => undefined);
  }
  throw new ProviderError({
    provider: 'openai',
    status: response.status,
    code: 'not_event_stream',
    message: `The server answered a streamed Responses request with ${what} (HTTP ${response.status}), not an event stream. Check that baseURL points at an API that serves the Responses API.`,
  });
}

/** A page (`text/html`) or a JSON document: a 200 with one of these is no event stream. */
function isPageOrJson(contentType: string | null): boolean {
  if (contentType === null) return false;
  return isJsonMediaType(contentType) || contentType.toLowerCase().trimStart().startsWith('text/html');
}
