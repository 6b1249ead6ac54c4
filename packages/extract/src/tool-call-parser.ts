import { ToolCallParserEndedError } from './errors.ts';
import { resolveExtractOptions } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { ToolCallScanner } from './tool-call-scanner.ts';

/** The streaming form of `extractToolCalls`: feed chunks, get events. */
export interface ToolCallParser {
  /** Scans the next chunk and returns the events it completes. */
  push(chunk: string): readonly ToolCallParserEvent[];
  /** Ends the stream: flushes held-back text and reports an unclosed call as `incomplete`. */
  end(): readonly ToolCallParserEvent[];
}

/**
 * Creates a streaming tool-call parser. Text is released as soon as it cannot be the start
 * of a call; whatever the chunking, the calls equal `extractToolCalls` on the whole text.
 *
 * @example
 * const parser = createToolCallParser({ tools: ['search'] });
 * for await (const chunk of stream) for (const event of parser.push(chunk)) handle(event);
 * for (const event of parser.end()) handle(event);
 */
export function createToolCallParser(options?: ExtractOptions): ToolCallParser {
  return new StreamingToolCallParser(new ToolCallScanner(resolveExtractOptions(options), true));
}

/**
 * A class rather than an object of closures: every parser shares the same `push` function,
 * so the engine can inline it into the caller's loop (a per-byte call in token streams).
 */
class StreamingToolCallParser implements ToolCallParser {
  private readonly scanner: ToolCallScanner;
  private ended = false;

  constructor(scanner: ToolCallScanner) {
    this.scanner = scanner;
  }

  push(chunk: string): readonly ToolCallParserEvent[] {
    if (this.ended) throw new ToolCallParserEndedError();
    return this.scanner.push(chunk);
  }

  end(): readonly ToolCallParserEvent[] {
    if (this.ended) return [];
    this.ended = true;
    return this.scanner.end();
  }
}
