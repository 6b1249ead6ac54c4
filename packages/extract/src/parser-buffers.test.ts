import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectingSink } from '../test/helpers/collecting-sink.ts';
import { ToolCallParserEndedError } from './errors.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import type { ExtractableTool, ExtractOptions } from './extract-options.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';

// Parsers share module state: a pool of kept-character buffers (an ended stream's goes to the
// next), lone-character decisions per format set and prefix sets per list of names. Whatever
// one stream does to its parser (ended from its own sink, a sink that throws while it ends,
// ended twice, pushed after its end, abandoned), the streams beside it and after it find their
// own calls.

const calls = (events: readonly ToolCallParserEvent[]) => events.flatMap((event) => (event.type === 'tool-call' ? [event.toolCall] : []));

/** A text whose calls keep many characters (past one buffer's 1024 when long). */
const text = fc
  .tuple(
    fc.constantFrom('', 'Sure. ', '请调用', '[', '<tool_call>\n'),
    fc.constantFrom('search', 'f', 'get_weather', 'ns::search'),
    fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '(', ')', '[', ']', '{', '}', "'", '\\'), maxLength: 40 }),
    fc.nat({ max: 2500 }),
  )
  .map(([lead, name, noise, length]) => {
    const value = JSON.stringify(noise + 'x'.repeat(length));
    if (lead === '<tool_call>\n') return `${lead}{"name": "${name}", "arguments": {"q": ${value}}}\n</tool_call> done`;
    return `${lead}${name}(q=${value}, n=${length})${lead === '[' ? ']' : ''} done`;
  });

/** What may happen to a stream besides being read to its end. */
type Mishap = 'none' | 'ended-by-its-sink' | 'sink-throws-at-end' | 'ended-twice' | 'abandoned';

interface Stream {
  text: string;
  mishap: Mishap;
  /** Where the mishap happens, as a fraction of the text. */
  at: number;
  parser: ToolCallParser;
  events: ToolCallParserEvent[];
  next: number;
  done: boolean;
  /** Started after another ended (it gets no replacement of its own). */
  replacement: boolean;
}

describe('parsers beside and after each other', () => {
  it('find their own calls whatever the streams beside them do to their parsers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ text, mishap: fc.constantFrom<Mishap>('none', 'ended-by-its-sink', 'sink-throws-at-end', 'ended-twice', 'abandoned'), at: fc.double({ min: 0, max: 1, noNaN: true }) }), {
          minLength: 2,
          maxLength: 5,
        }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 400 }),
        fc.constantFrom<ExtractOptions | undefined>(undefined, { tools: ['search', 'f', 'get_weather', 'ns::search'] }, { formats: ['call', 'json', 'qwen3-xml'] }),
        (specs, order, options) => {
          const streams: Stream[] = specs.map((spec) => ({ ...spec, parser: createToolCallParser(options), events: [], next: 0, done: false, replacement: false }));
          const finish = (stream: Stream): void => {
            stream.done = true;
            // The next response takes its place (and whatever buffer was left for it).
            if (!stream.replacement) streams.push({ ...stream, mishap: 'none', parser: createToolCallParser(options), events: [], next: 0, done: false, replacement: true });
          };
          const step = (stream: Stream): void => {
            const stop = Math.floor(stream.at * stream.text.length);
            if (stream.mishap === 'abandoned' && stream.next >= stop) return finish(stream);
            if (stream.next === stream.text.length) {
              if (stream.mishap === 'sink-throws-at-end') {
                const sink = { ...collectingSink(stream.events), onText: () => { throw new Error('the consumer went away'); } };
                try {
                  stream.parser.end(sink);
                } catch {
                  // What the consumer threw; the parser is ended either way.
                }
                expect(stream.parser.end()).toEqual([]);
              } else {
                stream.events.push(...stream.parser.end());
                if (stream.mishap === 'ended-twice') expect(stream.parser.end()).toEqual([]);
                else if (stream.mishap === 'none') expect(calls(stream.events)).toEqual(extractToolCalls(stream.text, options));
              }
              return finish(stream);
            }
            const chunk = stream.text.charAt(stream.next++);
            if (stream.mishap === 'ended-by-its-sink' && stream.next > stop) {
              // The consumer ends the parser from inside a sink method (the last event of a
              // one-character push may; one made while the chunk is scanned throws).
              const sink = collectingSink(stream.events);
              const ending = { ...sink, onToolCallDelta: () => stream.parser.end(), onText: () => stream.parser.end() };
              try {
                stream.parser.push(chunk, ending);
              } catch {
                // Refused while the chunk was scanned: end it afterwards.
              }
              stream.parser.end();
              expect(() => stream.parser.push('x')).toThrow(ToolCallParserEndedError);
              return finish(stream);
            }
            stream.events.push(...stream.parser.push(chunk));
          };
          for (const pick of order) {
            const live = streams.filter((stream) => !stream.done);
            const stream = live[pick % live.length];
            if (stream !== undefined) step(stream);
          }
          // Every stream still open is read to its end, a character at a time, one after another.
          for (;;) {
            const stream = streams.find((each) => !each.done);
            if (stream === undefined) break;
            step(stream);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a tool list edited in place', () => {
  // A server may keep one array of tools and change it: what an output may call is the list
  // as it stands when the output is read, whatever was cached for the same array before.
  const long = (): string[] => Array.from({ length: 40 }, (_, i) => `tool_${i}`);

  it('takes a long list of names as it stands, in batch and for a new stream', () => {
    const tools = long();
    const text = 'tool_3(a=1) search(q="x")';
    expect(extractToolCalls(text, { tools }).map((call) => call.name)).toEqual(['tool_3']);
    const streamed = (): string[] => {
      const parser = createToolCallParser({ tools });
      return calls([...parser.push(text), ...parser.end()]).map((call) => call.name);
    };
    expect(streamed()).toEqual(['tool_3']);
    // tool_3 is withdrawn, search takes its place: the same array, the same length.
    tools[3] = 'search';
    expect(extractToolCalls(text, { tools }).map((call) => call.name)).toEqual(['search']);
    expect(streamed()).toEqual(['search']);
  });

  it('takes a long list of tools with the schemas they have now', () => {
    const tools: ExtractableTool[] = long().map((name) => ({ name, inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }));
    expect(extractToolCalls('tool_3(a=1)', { tools })[0]?.arguments).toEqual({ a: '1' });
    tools[3] = { name: 'tool_3', inputSchema: { type: 'object', properties: { a: { type: 'integer' } } } };
    expect(extractToolCalls('tool_3(a=1)', { tools })[0]?.arguments).toEqual({ a: 1 });
    const same = tools[4];
    if (same !== undefined) same.inputSchema = { type: 'object', properties: { a: { type: 'integer' } } };
    expect(extractToolCalls('tool_4(a=1)', { tools })[0]?.arguments).toEqual({ a: 1 });
  });

  it('keeps what a stream started with while it goes on', () => {
    const tools = long();
    const parser = createToolCallParser({ tools });
    const events = [...parser.push('tool_3(a=1) ')];
    tools[3] = 'other';
    events.push(...parser.push('tool_3(a=2)'), ...parser.end());
    expect(calls(events).map((call) => call.arguments)).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
