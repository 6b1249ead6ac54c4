import { ProviderError } from '@toolwire/core';
import { readChatCompletion } from './read-chat-completion.ts';

/**
 * Checks that the answer to a streamed Chat Completions request is an event stream. A 200
 * with JSON (a proxy's or gateway's `{"error": …}`, or a server that ignored `stream: true`)
 * or a page is said as what it is: the error a JSON body carries becomes the SDK's error for
 * it, as for a non-streamed call (see `readChatCompletion`). Before, it was read as an empty
 * stream, "ended without a finish reason", and the server's own message was lost. A response
 * without a content type is taken as a stream.
 */
export async function ensureEventStream(response: Response, options: { endGraceMs?: number } = {}): Promise<void> {
  const contentType = response.headers.get('content-type');
  if (contentType === null || contentType.toLowerCase().includes('event-stream')) return;
  // Throws the error in the body, or says the JSON is no chat completion; the page case too.
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
