import { createToolCallParser, extractToolCalls } from '@toolwire/extract';
import type { ExtractOptions as ExtractToolCallsOptions } from '@toolwire/extract';
import type { ToolCall } from '@toolwire/core';
import type { CommandContext } from '../context.ts';
import { println, style, writeLine } from '../output.ts';
import type { ExtractOptions } from '../program.ts';
import { splitList } from '../program.ts';
import { openTextInput, readTextInput } from '../read-input.ts';
import { formatTable } from '../table.ts';
import { visible } from '../terminal-text.ts';

/** `toolwire extract`: prints the tool calls found in a text. */
export async function extractCommand(context: CommandContext, file: string, options: ExtractOptions): Promise<void> {
  const tools = splitList(options.tools);
  const extractOptions: ExtractToolCallsOptions = tools.length > 0 ? { tools } : {};
  // Both modes: a stream and a whole text give the same calls for the same bound.
  if (options.maxCallChars !== undefined) extractOptions.maxCallChars = options.maxCallChars;
  const { output } = context;

  if (options.stream === true) {
    // Incremental: events as the text arrives (JSON lines), or the calls as a table at the end.
    const parser = createToolCallParser(extractOptions);
    const calls: ToolCall[] = [];
    const emit = async (events: ReturnType<typeof parser.push>) => {
      for (const event of events) {
        if (event.type === 'tool-call') calls.push(event.toolCall);
        if (options.format === 'json') await writeLine(output, JSON.stringify(event));
      }
    };
    for await (const chunk of await openTextInput(context, file)) await emit(parser.push(chunk));
    await emit(parser.end());
    if (options.format === 'table') printCalls(context, calls);
    return;
  }

  const text = await readTextInput(context, file, { hint: 'use --stream, which reads any amount piece by piece' });
  const calls = extractToolCalls(text, extractOptions);
  if (options.format === 'json') {
    for (const call of calls) println(output, JSON.stringify({ id: call.id, name: call.name, arguments: call.arguments }));
    return;
  }
  printCalls(context, calls);
}

function printCalls(context: CommandContext, calls: readonly ToolCall[]): void {
  const { output } = context;
  if (calls.length === 0) {
    println(output, style(output, 'dim', 'no tool calls found'));
    return;
  }
  const rows = calls.map((call) => [visible(call.id), visible(call.name), visible(JSON.stringify(call.arguments))]);
  for (const line of formatTable(['id', 'name', 'arguments'], rows)) println(output, line);
}
