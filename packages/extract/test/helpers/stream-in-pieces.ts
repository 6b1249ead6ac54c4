import type { ExtractOptions } from '../../src/extract-options.ts';
import { createToolCallParser } from '../../src/tool-call-parser.ts';
import type { ToolCallParserEvent } from '../../src/tool-call-parser-event.ts';

/** The events of `text` pushed in pieces of `size` characters (the last one shorter), then `end()`. */
export function streamInPieces(text: string, size: number, options?: ExtractOptions): ToolCallParserEvent[] {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
  events.push(...parser.end());
  return events;
}
