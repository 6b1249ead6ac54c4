// Shared by the answer-limit tests: an upstream that streams one answer without end, paced as
// a model writes (one small event per turn of the event loop, 5-50 characters of content
// each, waiting on back-pressure), in each wire format and shape a runaway answer takes.
import type { ServerResponse } from 'node:http';

/** One event of an answer and the characters of answer it carries. */
export interface AnswerEvent {
  event: string;
  chars: number;
}

/** How one answer is written: what opens it, each event after, and (for a finite answer) what ends it. */
export interface AnswerShape {
  contentType: string;
  head: string;
  next: (i: number) => AnswerEvent;
  end: string;
}

/** What a pour wrote. */
export interface Poured {
  /** Characters of answer written. */
  chars: number;
  /** The client closed the connection before the answer was written to its end. */
  cut: boolean;
}

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua '.repeat(3);

/** 5 to 50 characters of letters and spaces (nothing that could close a call), the same for the same `i`. */
export function answerPiece(i: number): string {
  const length = 5 + ((i * 7919) % 46);
  const start = (i * 104729) % 120;
  return WORDS.slice(start, start + length);
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes `shape` until `chars` characters of answer, then its end; or until the client
 * closes the connection. One event per turn of the event loop (a model's pace at its
 * fastest), waiting for `drain` when the socket is full. `onChars` is told the count every
 * `everyChars` (default 64 KiB), e.g. to sample the heap.
 */
/** Resolves once `res` may be written again (`drain`) or is gone (`close`). */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

export async function pourAnswer(res: ServerResponse, shape: AnswerShape, chars: number, onChars?: (chars: number) => void, everyChars = 64 * 1024): Promise<Poured> {
  res.writeHead(200, { 'content-type': shape.contentType });
  res.write(shape.head);
  let written = 0;
  let reported = 0;
  for (let i = 0; written < chars && !res.destroyed; i++) {
    const { event, chars: n } = shape.next(i);
    written += n;
    const ok = res.write(event);
    if (onChars !== undefined && written - reported >= everyChars) {
      reported = written;
      onChars(written);
    }
    if (!ok && res.writableNeedDrain) {
      await drainedOrClosed(res);
    } else {
      await nextTurn();
    }
  }
  const cut = res.destroyed;
  if (!cut) res.end(shape.end);
  return { chars: written, cut };
}

const chunkHead = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":';
const chatEvent = (delta: unknown, finish: string | null = null): string => `data: ${chunkHead}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
const sse = (event: Record<string, unknown>): string => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`;
const ndjson = (message: unknown, done = false): string =>
  `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message, done, ...(done ? { done_reason: 'stop', prompt_eval_count: 1, eval_count: 1 } : {}) })}\n`;

/**
 * Chat Completions: text in `content` after `prefix` (a text-format call opened and never
 * closed, or nothing); a finite answer ends with `suffix` (what closes that call).
 */
export function chatText(prefix = '', suffix = ''): AnswerShape {
  return {
    contentType: 'text/event-stream',
    head: chatEvent({ role: 'assistant', content: prefix }),
    next: (i) => {
      const piece = answerPiece(i);
      return { event: chatEvent({ content: piece }), chars: piece.length };
    },
    end: (suffix === '' ? '' : chatEvent({ content: suffix })) + chatEvent({}, 'stop') + 'data: [DONE]\n\n',
  };
}

/** Chat Completions: one native call whose `arguments` keep coming. */
export function chatArguments(tool: string): AnswerShape {
  return {
    contentType: 'text/event-stream',
    head: chatEvent({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: tool, arguments: '{"q": "' } }] }),
    next: (i) => {
      const piece = answerPiece(i);
      return { event: chatEvent({ tool_calls: [{ index: 0, function: { arguments: piece } }] }), chars: piece.length };
    },
    end: chatEvent({ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }) + chatEvent({}, 'tool_calls') + 'data: [DONE]\n\n',
  };
}

/** Chat Completions: a new native call in every event (index 0, 1, 2, …). */
export function chatCalls(tool: string): AnswerShape {
  return {
    contentType: 'text/event-stream',
    head: chatEvent({ role: 'assistant', content: null }),
    next: (i) => {
      const args = `{"q": "${answerPiece(i)}"}`;
      return { event: chatEvent({ tool_calls: [{ index: i, id: `call_${i}`, type: 'function', function: { name: tool, arguments: args } }] }), chars: args.length };
    },
    end: chatEvent({}, 'tool_calls') + 'data: [DONE]\n\n',
  };
}

const responseCreated = sse({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', created_at: 1, model: 'm', status: 'in_progress', output: [] } });
const responseCompleted = (output: unknown[]): string =>
  sse({ type: 'response.completed', sequence_number: 1e9, response: { id: 'resp_1', object: 'response', created_at: 1, model: 'm', status: 'completed', output, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } });

/** Responses API: `response.output_text.delta` without end. */
export function responsesText(): AnswerShape {
  return {
    contentType: 'text/event-stream',
    head: responseCreated + sse({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] } }),
    next: (i) => {
      const piece = answerPiece(i);
      return { event: sse({ type: 'response.output_text.delta', sequence_number: i + 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: piece }), chars: piece.length };
    },
    end: responseCompleted([]),
  };
}

/** Responses API: `response.function_call_arguments.delta` of one call without end. */
export function responsesArguments(tool: string): AnswerShape {
  return {
    contentType: 'text/event-stream',
    head: responseCreated + sse({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: tool, arguments: '', status: 'in_progress' } }),
    next: (i) => {
      const piece = answerPiece(i);
      return { event: sse({ type: 'response.function_call_arguments.delta', sequence_number: i + 2, item_id: 'fc_1', output_index: 0, delta: piece }), chars: piece.length };
    },
    end: responseCompleted([]),
  };
}

/** Ollama: `message.content` after `prefix`, line after line. */
export function ollamaText(prefix = ''): AnswerShape {
  return {
    contentType: 'application/x-ndjson',
    head: ndjson({ role: 'assistant', content: prefix }),
    next: (i) => {
      const piece = answerPiece(i);
      return { event: ndjson({ role: 'assistant', content: piece }), chars: piece.length };
    },
    end: ndjson({ role: 'assistant', content: '' }, true),
  };
}

/** Ollama: a new whole call in `message.tool_calls` on every line. */
export function ollamaCalls(tool: string): AnswerShape {
  return {
    contentType: 'application/x-ndjson',
    head: '',
    next: (i) => {
      const piece = answerPiece(i);
      return { event: ndjson({ role: 'assistant', content: '', tool_calls: [{ function: { name: tool, arguments: { q: piece } } }] }), chars: piece.length + 8 };
    },
    end: ndjson({ role: 'assistant', content: '' }, true),
  };
}

/** The heap after two collections (the tests run with `--expose-gc`), in bytes. */
export function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}
