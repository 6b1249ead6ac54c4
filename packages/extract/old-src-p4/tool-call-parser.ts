import { resolveExtractOptions } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { ToolCallScanner } from './tool-call-scanner.ts';
import type { ToolCallSink } from './tool-call-sink.ts';

/** The streaming form of `extractToolCalls`: feed chunks, get events. */
export interface ToolCallParser {
  /**
   * Scans the next chunk and returns the events it completes. Given a `sink`, hands the same
   * events to its methods instead, in order, and returns an empty array: no event object is
   * made per push. Throws `ToolCallParserEndedError` after `end()`, and
   * `ToolCallParserReentryError` when called from inside a sink method while a chunk is scanned.
   */
  push(chunk: string, sink?: ToolCallSink): readonly ToolCallParserEvent[];
  /** Ends the stream: flushes held-back text and reports an unclosed call as `incomplete` (to `sink` when given). */
  end(sink?: ToolCallSink): readonly ToolCallParserEvent[];
}

/**
 * Creates a streaming tool-call parser. Text is released as soon as it cannot be the start
 * of a call; whatever the chunking, the calls equal `extractToolCalls` on the whole text.
 *
 * @example
 * const parser = createToolCallParser({ tools: ['search'] });
 * for await (const chunk of stream) for (const event of parser.push(chunk)) handle(event);
 * for (const event of parser.end()) handle(event);
 *
 * // The same events as method calls, without an event object per push:
 * const sink = { onText: (text) => show(text), onToolCall: (call) => run(call) };
 * for await (const chunk of stream) parser.push(chunk, sink);
 * parser.end(sink);
 */
export function createToolCallParser(options?: ExtractOptions): ToolCallParser {
  // The scanner itself, not a wrapper around it: in a token stream `push` runs once per
  // character, where one more call and check per character is measurable.
  return new ToolCallScanner(resolveExtractOptions(options), true);
}
