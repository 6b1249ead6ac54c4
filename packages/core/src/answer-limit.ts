import { AnswerTooLargeError } from './errors.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';

/**
 * The default bound on one answer's characters (4 Mi, 4,194,304): text, reasoning and
 * tool-call arguments together. Today's models write at most ~128k output tokens, well under
 * 1 MB of text, reasoning included; this leaves a margin of four and more while keeping what
 * a runaway answer can hold to tens of MB (a streaming parser holds an unclosed call at about
 * 3x its text).
 */
export const DEFAULT_MAX_ANSWER_CHARS = 4 * 1024 * 1024;

/**
 * The default bound on tool calls in one answer (1024). Models call a few tools per turn, a
 * few dozen at the very most; each call is a tool run (or a result the client must send
 * back), so a model that repeats calls is stopped long before it floods either.
 */
export const DEFAULT_MAX_TOOL_CALLS_PER_ANSWER = 1024;

/** Bounds on one answer, resolved: a whole number each, 0 for none. */
export interface AnswerLimits {
  maxChars: number;
  maxToolCalls: number;
}

/** The options that raise each bound, as the error names them (`the maxAnswerChars option of createOpenAI`). */
export interface AnswerLimitSettings {
  chars: string;
  toolCalls: string;
}

/** Options of `AnswerLimit`. */
export interface AnswerLimitOptions extends AnswerLimits {
  settings: AnswerLimitSettings;
  /** Named in the error (`openai`). */
  provider?: string;
}

function resolveOne(value: number | undefined, fallback: number, setting: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${setting} must be a whole number (0 turns the limit off); got ${String(value)}.`);
  }
  return value;
}

/**
 * `maxAnswerChars` / `maxToolCallsPerAnswer` options checked and resolved: the defaults when
 * absent, 0 (no limit) or a whole number.
 *
 * @throws RangeError for anything else, naming the setting.
 */
export function resolveAnswerLimits(options: { maxAnswerChars?: number | undefined; maxToolCallsPerAnswer?: number | undefined }, settings: AnswerLimitSettings): AnswerLimits {
  return {
    maxChars: resolveOne(options.maxAnswerChars, DEFAULT_MAX_ANSWER_CHARS, settings.chars),
    maxToolCalls: resolveOne(options.maxToolCallsPerAnswer, DEFAULT_MAX_TOOL_CALLS_PER_ANSWER, settings.toolCalls),
  };
}

/**
 * Counts one answer against its bounds as it arrives: characters (of text, reasoning, refusal
 * and tool-call arguments, as the provider holds them) and tool calls. Past a bound it throws
 * an `AnswerTooLargeError`; whoever reads the upstream then stops and closes it. One per
 * answer (per model call).
 *
 * @example
 * const limit = new AnswerLimit({ maxChars: 4 << 20, maxToolCalls: 1024, settings: { chars: 'maxAnswerChars', toolCalls: 'maxToolCallsPerAnswer' } });
 * limit.addChars(delta.length); // throws once the answer is past 4 Mi characters
 */
export class AnswerLimit {
  readonly #options: AnswerLimitOptions;
  #chars = 0;
  #calls = 0;

  constructor(options: AnswerLimitOptions) {
    this.#options = options;
  }

  /** Counts `count` more characters of the answer. */
  addChars(count: number): void {
    this.#chars += count;
    const max = this.#options.maxChars;
    if (this.#chars > max && max > 0) throw this.#error('chars', max);
  }

  /** Counts one more tool call of the answer. */
  addToolCall(): void {
    this.#calls += 1;
    const max = this.#options.maxToolCalls;
    if (this.#calls > max && max > 0) throw this.#error('tool-calls', max);
  }

  /**
   * Counts a stream event: the characters of a text, reasoning or arguments delta, a call at
   * its `tool-call-start` (a stream that holds to `guardStream`'s contract starts every call).
   */
  addEvent(event: ChatStreamEvent): void {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
        this.addChars(event.delta.length);
        break;
      case 'tool-call-delta':
        this.addChars(event.argumentsDelta.length);
        break;
      case 'tool-call-start':
        this.addToolCall();
        break;
      default:
        break;
    }
  }

  /** Counts a whole answer (a `generate` result). */
  addResponse(response: ChatResponse): void {
    this.addChars(response.text.length + (response.reasoning?.length ?? 0));
    for (const call of response.toolCalls) {
      this.addToolCall();
      this.addChars(call.invalid?.rawArguments.length ?? JSON.stringify(call.arguments).length);
    }
  }

  #error(limit: 'chars' | 'tool-calls', max: number): AnswerTooLargeError {
    const { settings, provider } = this.#options;
    return new AnswerTooLargeError({ limit, max, setting: limit === 'chars' ? settings.chars : settings.toolCalls, ...(provider === undefined ? {} : { provider }) });
  }
}
