import { answerProblem, isAnswer } from './check-answer.ts';

/**
 * Reads an event stream beside the SDK, for the answer to one request: whether it came
 * (valid), what was wrong with an answer that was not, and whether the server made the
 * stream resumable (an event `id`), so that a stream ending without the answer is known to
 * have ended it. Fields as the SSE standard reads them.
 */
export class AnswerWatch {
  /** A valid answer for the request went by. */
  answered = false;
  /** What was wrong with the last answer for the request that was not valid. */
  problem: string | undefined;
  /** The server gave an event id: the SDK may resume the stream for the answer. */
  resumable = false;

  private readonly id: unknown;
  private readonly decoder = new TextDecoder();
  private line = '';
  private afterCR = false;
  private data: string[] = [];
  private event = '';

  constructor(id: unknown) {
    this.id = id;
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
    else if (field === 'id' && value !== '' && !value.includes('\u0000')) this.resumable = true;
  }

  private dispatch(): void {
    const { data, event } = this;
    this.data = [];
    this.event = '';
    if (data.length === 0 || (event !== '' && event !== 'message')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    if (!isAnswer(parsed, this.id)) return;
    const problem = answerProblem(parsed);
    if (problem === undefined) this.answered = true;
    else this.problem = problem;
  }
}
