import { StreamError } from '../errors.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';

/** Options of `guardStream`. */
export interface GuardStreamOptions {
  /** Named in the errors the guard raises. */
  provider: string;
}

/**
 * Holds a provider's stream to the `ChatModel.stream` contract: a failure before the first
 * event is thrown (from the first `next()`), a failure after it becomes one `error` event;
 * a tool call goes `tool-call-start` → `tool-call-delta`s → one `tool-call` (a missing start
 * is added, a delta or a second `tool-call` for an unknown or finished id is a `StreamError`);
 * exactly one terminal event (`finish` or `error`) comes last, and a source that ends
 * without one ends with a `StreamError`. Nothing is read from the source after its terminal event.
 */
export async function* guardStream(source: AsyncIterable<ChatStreamEvent>, options: GuardStreamOptions): AsyncGenerator<ChatStreamEvent> {
  const open = new Set<string>();
  const done = new Set<string>();
  let started = false;
  const iterator = source[Symbol.asyncIterator]();
  const breach = (message: string): ChatStreamEvent => ({
    type: 'error',
    error: new StreamError({ provider: options.provider, message: `The ${options.provider} stream broke the stream contract: ${message}` }),
  });
  try {
    for (;;) {
      let next: IteratorResult<ChatStreamEvent>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (!started) throw error;
        yield { type: 'error', error: error instanceof Error ? error : new StreamError({ provider: options.provider, message: String(error) }) };
        return;
      }
      if (next.done === true) {
        yield breach('it ended without a finish event, so the answer may be incomplete. Send the request again.');
        return;
      }
      const event = next.value;
      started = true;
      switch (event.type) {
        case 'tool-call-start':
          if (open.has(event.id) || done.has(event.id)) {
            yield breach(`tool call "${event.id}" was started twice.`);
            return;
          }
          open.add(event.id);
          yield event;
          break;
        case 'tool-call-delta':
          if (!open.has(event.id)) {
            yield breach(`arguments arrived for tool call "${event.id}", which is not open.`);
            return;
          }
          yield event;
          break;
        case 'tool-call': {
          const id = event.toolCall.id;
          if (done.has(id)) {
            yield breach(`tool call "${id}" was finished twice.`);
            return;
          }
          if (!open.has(id)) {
            yield { type: 'tool-call-start', id, name: event.toolCall.name, ...(event.toolCall.providerExecuted === true ? { providerExecuted: true } : {}) };
            yield { type: 'tool-call-delta', id, argumentsDelta: event.toolCall.invalid?.rawArguments ?? JSON.stringify(event.toolCall.arguments) };
          }
          open.delete(id);
          done.add(id);
          yield event;
          break;
        }
        case 'finish':
        case 'error':
          yield event;
          return;
        case 'text-delta':
        case 'reasoning-delta':
        case 'tool-result':
        case 'warning':
          yield event;
          break;
        default: {
          const unexpected: never = event;
          yield breach(`unknown event ${JSON.stringify(unexpected)}.`);
          return;
        }
      }
    }
  } finally {
    await iterator.return?.();
  }
}
