import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { createSseEventParser } from './sse-event-parser.ts';
import type { SseEvent } from './sse-event-parser.ts';

function toChunk(sse: SseEvent, headers: Headers): ChatCompletionChunk {
  let data: unknown;
  try {
    data = JSON.parse(sse.data);
  } catch {
    throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
  }
  // Errors inside a stream, as the SDK's own stream reports them: an `error` event, or a payload with a truthy `error`.
  const error = (data as { error?: unknown } | null)?.error;
  if (sse.event === 'error') throw new APIError(undefined, (error ?? data) as object | undefined, undefined, headers);
  if (error !== undefined && error !== null && error !== false && error !== '' && error !== 0) throw new APIError(undefined, error, undefined, headers);
  return data as ChatCompletionChunk;
}

/**
 * The chunks of a streamed Chat Completions response, as they arrive (all the chunks of
 * one read together): SSE parsed in one linear pass, each payload parsed once, an error
 * payload thrown as the SDK's `APIError` (what the SDK's stream throws), `[DONE]` ends it.
 * One await per read of the body, where the SDK's stream takes several generators and
 * promises per chunk. Leaving early (or an error) cancels the body, which frees the socket.
 */
export async function* readChatChunks(response: Response): AsyncGenerator<ChatCompletionChunk[]> {
  const body = response.body;
  if (body === null) throw new SyntaxError('Error reading response: the streamed response has no body.');
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseEventParser();
  let ended = false;
  try {
    for (;;) {
      const read = await reader.read();
      const events = read.done ? [...parser.push(decoder.decode()), ...parser.end()] : parser.push(decoder.decode(read.value, { stream: true }));
      const chunks: ChatCompletionChunk[] = [];
      let sawDone = false;
      for (const sse of events) {
        if (sse.data === '[DONE]') {
          sawDone = true;
          break;
        }
        chunks.push(toChunk(sse, response.headers));
      }
      if (chunks.length > 0) yield chunks;
      if (sawDone || read.done) {
        ended = read.done;
        return;
      }
    }
  } finally {
    // Stopped before the body's end ([DONE], an error, or the consumer left): let the socket go.
    if (!ended) reader.cancel().catch(() => undefined);
  }
}
