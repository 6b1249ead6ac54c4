import { isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { answerProblem, isAnswer } from './check-answer.ts';

/**
 * Reads an event stream beside the SDK, for the answer to one request: whether it came
 * (valid), what was wrong with an answer that was not, and whether the SDK will reopen the
 * stream to resume it, so that a stream ending without the answer is known to have ended it.
 * Events are read as the SDK's parser (eventsource-parser) reads them: lines end at CR, LF or
 * CRLF; an event is dispatched at a blank line only if it had a `data` line; its `id` is its
 * own (not carried to the next event, unlike the SSE standard's last event ID).
 */
export class AnswerWatch {
  /** A valid answer for the request went by. */
  answered = false;
  /** What was wrong with the last answer for the request that was not valid. */
  problem: string | undefined;
  /** The id of the last event that had one (what the SDK sends as Last-Event-ID to resume). */
  lastEventId: string | undefined;

  private readonly id: unknown;
  private readonly reconnectable: boolean;
  private readonly onAnswer: ((id: string | number) => void) | undefined;
  private readonly decoder = new TextDecoder();
  private line = '';
  private afterCR = false;
  private data: string[] = [];
  private event = '';
  private eventId = '';
  private sawEventId = false;
  private sawResult = false;

  /**
   * `reconnectable`: a GET stream, which the SDK reopens when it ends even without an event id.
   * `onAnswer`: told the id of every valid answer that goes by, to this request or another
   * (the SDK takes an answer on any stream).
   */
  constructor(id: unknown, options: { reconnectable?: boolean; onAnswer?: (id: string | number) => void } = {}) {
    this.id = id;
    this.reconnectable = options.reconnectable ?? false;
    this.onAnswer = options.onAnswer;
  }

  /**
   * The SDK reopens the stream (GET with Last-Event-ID) when it ends: an event with an id
   * went by (or it is a GET stream), and no successful answer, to this request or any other, did.
   */
  get resumable(): boolean {
    return (this.reconnectable || this.sawEventId) && !this.sawResult;
  }

  /** Part of an event was read and not yet dispatched (a line or an event cut off). */
  get pending(): boolean {
    return this.line !== '' || this.data.length > 0;
  }

  push(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // `\r\n` is one line end.
      if (c === 10 && this.afterCR && i === start && this.line === '') {
        this.afterCR = false;
        start = i + 1;
        continue;
      }
      this.readLine(this.line + text.slice(start, i));
      this.line = '';
      this.afterCR = c === 13;
      start = i + 1;
    }
    if (start < text.length) {
      this.line += text.slice(start);
      this.afterCR = false;
    }
  }

  /** The stream ended: an event left unfinished counts as sent (the caller ends it for the SDK too). */
  end(): void {
    if (this.line !== '') this.readLine(this.line);
    this.line = '';
    this.dispatch();
  }

  private readLine(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\u0000')) this.eventId = value;
  }

  private dispatch(): void {
    const { data, event, eventId } = this;
    this.data = [];
    this.event = '';
    this.eventId = '';
    if (data.length === 0) return;
    if (eventId !== '') {
      this.sawEventId = true;
      this.lastEventId = eventId;
    }
    if (event !== '' && event !== 'message') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    if (isJSONRPCResultResponse(parsed)) this.sawResult = true;
    if (!isAnswer(parsed)) return;
    const problem = answerProblem(parsed);
    if (problem === undefined) this.onAnswer?.(parsed.id as string | number);
    if (!isAnswer(parsed, this.id)) return;
    if (problem === undefined) this.answered = true;
    else this.problem = problem;
  }
}
