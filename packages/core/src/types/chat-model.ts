import type { ChatRequest } from './chat-request.ts';
import type { ChatResponse } from './chat-response.ts';
import type { ChatStreamEvent } from './chat-stream-event.ts';

/**
 * A model behind one provider. Every provider package implements this.
 *
 * `stream` throws from the first `next()` for errors that stop the call from starting
 * (bad request, authentication, unreachable provider); a failure after events were
 * delivered arrives as a final `error` event.
 */
export interface ChatModel {
  /** Provider name, e.g. `'openai'`, `'ollama'`, `'chatgpt'`. */
  readonly provider: string;
  readonly modelId: string;
  generate(request: ChatRequest): Promise<ChatResponse>;
  stream(request: ChatRequest): AsyncIterable<ChatStreamEvent>;
}
