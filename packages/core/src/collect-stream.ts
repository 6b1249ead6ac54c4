import { StreamError } from './errors.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';
import type { FinishReason } from './types/finish-reason.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolResult } from './types/tool-result.ts';
import type { Usage } from './types/usage.ts';
import type { Warning } from './types/warning.ts';
import type { ProviderMetadata } from './types/provider-metadata.ts';

/**
 * Consumes a stream of `ChatStreamEvent`s and returns the same `ChatResponse` that
 * `generate` would. Throws the stream's `error` event, and a `StreamError` when the
 * stream ends without a `finish` event.
 *
 * @example const response = await collectStream(model.stream(request));
 */
export async function collectStream(events: AsyncIterable<ChatStreamEvent>): Promise<ChatResponse> {
  const collector = newResponseCollector();
  for await (const event of events) collector.add(event);
  return collector.response();
}

/** Builds a `ChatResponse` event by event (what `collectStream` does, for loops that drive the stream themselves). */
export interface ResponseCollector {
  /** Takes the next event; throws the error of an `error` event. */
  add(event: ChatStreamEvent): void;
  /**
   * The response to the events so far; throws a `StreamError` when no `finish` event came.
   * Events added later do not change a response already returned.
   */
  response(): ChatResponse;
}

// Deltas wait in a small array of this many slots, then are joined into one batch string,
// and batches are copied into one flat block string until it reaches `BLOCK_CHARS`; the text
// is a rope of such blocks. `text += delta` for every delta would keep one rope node (32
// bytes) per token alive for as long as the stream is open, several times the text; so would
// a long list of waiting deltas or batches (a string header and a slot each). Here at most 7
// deltas wait, a block grows by copying (each character copied a bounded number of times,
// about BLOCK_CHARS / (2 × batch length): linear), and the rope gets one node per block.
const DELTA_BATCH = 8;
const BLOCK_CHARS = 1024;

// Two strings joined into a flat one (`a + b` would make a rope node keeping both).
const pair = ['', ''];
function joined(a: string, b: string): string {
  pair[0] = a;
  pair[1] = b;
  const text = pair.join('');
  pair[0] = '';
  pair[1] = '';
  return text;
}

/** Text built from many small deltas without a rope node or a waiting string per delta. */
class TextBuilder {
  /** The finished blocks (a rope of flat strings of at least `BLOCK_CHARS`). */
  #text = '';
  /** Batches since the last block, one flat string. */
  #block = '';
  // Made at the first delta (a stream without reasoning never needs the reasoning builder's);
  // its free slots hold '' (what a join of them adds nothing with).
  #parts: string[] | undefined;
  #waiting = 0;

  add(delta: string): void {
    const parts = (this.#parts ??= new Array<string>(DELTA_BATCH).fill(''));
    parts[this.#waiting++] = delta;
    if (this.#waiting < DELTA_BATCH) return;
    this.#flushParts(parts);
  }

  toString(): string {
    const parts = this.#parts;
    if (parts !== undefined && this.#waiting > 0) this.#flushParts(parts);
    if (this.#block !== '') {
      this.#text += this.#block;
      this.#block = '';
    }
    return this.#text;
  }

  /** Joins the waiting deltas into the block (a full block goes to the rope), and lets go of them. */
  #flushParts(parts: string[]): void {
    const batch = parts.join('');
    parts.fill('');
    this.#waiting = 0;
    const block = this.#block === '' ? batch : joined(this.#block, batch);
    if (block.length < BLOCK_CHARS) {
      this.#block = block;
      return;
    }
    this.#text += block;
    this.#block = '';
  }
}

/**
 * Creates an empty `ResponseCollector`. Its methods work detached from it
 * (`const { add, response } = createResponseCollector()`, `events.forEach(collector.add)`).
 */
export function createResponseCollector(): ResponseCollector {
  const collector = new EventCollector();
  return { add: (event) => collector.add(event), response: () => collector.response() };
}

/** A `ResponseCollector` whose methods need their object (what this package's loops hold per stream). */
export function newResponseCollector(): ResponseCollector {
  return new EventCollector();
}

// A class, not an object of closures over shared variables: a streaming tool loop holds one
// for as long as its model stream is open.
class EventCollector implements ResponseCollector {
  readonly #text = new TextBuilder();
  readonly #reasoning = new TextBuilder();
  readonly #toolCalls: ToolCall[] = [];
  readonly #toolResults: ToolResult[] = [];
  readonly #warnings: Warning[] = [];
  #finishReason: FinishReason | undefined;
  #usage: Usage | undefined;
  #responseId: string | undefined;
  #modelId: string | undefined;
  #providerMetadata: ProviderMetadata | undefined;

  add(event: ChatStreamEvent): void {
    switch (event.type) {
      case 'text-delta':
        this.#text.add(event.delta);
        break;
      case 'reasoning-delta':
        this.#reasoning.add(event.delta);
        break;
      case 'tool-call':
        this.#toolCalls.push(event.toolCall);
        break;
      case 'tool-result':
        this.#toolResults.push(event.result);
        break;
      case 'warning':
        this.#warnings.push(event.warning);
        break;
      case 'finish':
        this.#finishReason = event.finishReason;
        this.#usage = event.usage;
        this.#responseId = event.responseId;
        this.#modelId = event.modelId;
        this.#providerMetadata = event.providerMetadata;
        break;
      case 'error':
        throw event.error;
      case 'tool-call-start':
      case 'tool-call-delta':
        break;
      default: {
        const unexpected: never = event;
        throw new StreamError({ provider: 'unknown', message: `Unknown stream event ${JSON.stringify(unexpected)}` });
      }
    }
  }

  response(): ChatResponse {
    const finishReason = this.#finishReason;
    if (finishReason === undefined) {
      throw new StreamError({ provider: 'unknown', message: 'The stream ended without a finish event.' });
    }
    const usage = this.#usage;
    const responseId = this.#responseId;
    const modelId = this.#modelId;
    const providerMetadata = this.#providerMetadata;
    const text = this.#text.toString();
    const reasoning = this.#reasoning.toString();
    // Copies: a later `add` must not change a response already handed out.
    const calls = this.#toolCalls.slice();
    const results = this.#toolResults.slice();
    const response: ChatResponse = {
      text,
      toolCalls: calls,
      toolResults: results,
      finishReason,
      warnings: this.#warnings.slice(),
      message: {
        role: 'assistant',
        content: text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        ...(results.length > 0 ? { toolResults: results } : {}),
        ...(reasoning !== '' ? { reasoning } : {}),
        ...(providerMetadata ? { providerMetadata } : {}),
      },
    };
    if (reasoning !== '') response.reasoning = reasoning;
    if (usage) response.usage = usage;
    if (responseId !== undefined) response.responseId = responseId;
    if (modelId !== undefined) response.modelId = modelId;
    if (providerMetadata) response.providerMetadata = providerMetadata;
    return response;
  }
}
