import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExtractOptions } from './extract-options.ts';
import { ALL_FORMATS, resolveExtractOptions } from './extract-options.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import { renderToolCall } from './render-tool-call.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { ToolCallScanner } from './tool-call-scanner.ts';
import { collectingSink } from '../test/helpers/collecting-sink.ts';
import type { TextToolFormat } from './text-tool-format.ts';

// Prose that cannot contain a call of its own: words, spaces, punctuation, no brackets.
const WORDS = ['the', 'weather', 'is', 'nice', 'Sure', 'I', 'will', 'check', 'that', 'für', '东京', 'ok', 'then', 'a', 'list'];
const prose = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(' ', '\n', '. ', ', ', '! ', ': ', ' — ')), { maxLength: 12 })
  .map((parts) => parts.map(([word, sep]) => word + sep).join(''));

const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,5})?$/).filter((n) => !['if', 'for', 'in', 'or', 'and', 'not', 'new', 'with', 'def', 'fn', 'func', 'fun', 'sub', 'proc'].includes(n));
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);

const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.string({ unit: fc.constantFrom('a', '(', ')', '"', "'", '\\', ',', '{', '}', '[', ']', '=', ' ', '\n'), maxLength: 10 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;

const call = fc.record({ name, arguments: fc.dictionary(key, value, { maxKeys: 4 }) });

/** A text with calls embedded between prose, in call syntax or `<tool_call>` JSON. */
const document = fc
  .array(fc.tuple(prose, call, fc.constantFrom('call' as const, 'json-tag' as const)), { minLength: 1, maxLength: 5 })
  .chain((parts) =>
    prose.map((end) => ({
      text: parts.map(([before, c, format]) => `${before} ${renderToolCall(c, format)} `).join('') + end,
      calls: parts.map(([, c]) => c),
    })),
  );

// Native formats. XML formats carry text values (typed only by a schema), so their calls
// get string values, without leading or trailing whitespace (MiniMax trims it).
const XML_FORMATS = ['qwen3-xml', 'seed-oss', 'minimax-m2', 'minimax-m3', 'glm', 'deepseek-dsml', 'solar-open', 'minicpm5'] as const;
const JSON_FORMATS = ['hermes', 'deepseek', 'kimi-k2', 'kimi-k3', 'harmony', 'mistral', 'functionary', 'apertus', 'gemma4', 'functiongemma', 'plamo3'] as const;
const xmlText = fc
  .string({ unit: fc.constantFrom('a', 'Z', '7', ' ', '"', "'", '{', '}', '[', ']', '<', '>', '=', ',', '/', ':', '\\', 'é', '😀'), maxLength: 10 })
  .map((text) => text.trim());
const xmlCall = fc.record({ name, arguments: fc.dictionary(key, xmlText, { maxKeys: 4 }) });

// Spellings of those formats by newer families, which `renderToolCall` does not write.
const VARIANTS = ['deepseek-v4.1', 'gigachat-3.5', 'hunyuan-v3', 'hunyuan-v4', 'iquest-v2', 'k2-horizon', 'dots'] as const;
function renderVariant(c: { name: string; arguments: Record<string, string> }, variant: (typeof VARIANTS)[number]): string {
  const pairs = (key: (k: string) => string, value: (v: string) => string) =>
    Object.entries(c.arguments)
      .map(([k, v]) => key(k) + value(v))
      .join('');
  const dsml = (marker: string, wrapper: string) =>
    `<${marker}${wrapper}><${marker}invoke name="${c.name}">${Object.entries(c.arguments)
      .map(([k, v]) => `<${marker}parameter name="${k}" string="true">${v}</${marker}parameter>`)
      .join('')}</${marker}invoke></${marker}${wrapper}>`;
  switch (variant) {
    case 'deepseek-v4.1':
      return dsml('\uff5cDSML\uff5c ', 'calls');
    case 'gigachat-3.5':
      return dsml('\uff5cGCML\uff5c', 'tool_calls');
    case 'hunyuan-v3':
      return `<tool_calls>\n<tool_call>${c.name}<tool_sep>\n${pairs((k) => `<arg_key>${k}</arg_key>\n`, (v) => `<arg_value>${v}</arg_value>\n`)}</tool_call>\n</tool_calls>`;
    case 'hunyuan-v4':
      return `<tool_calls:s1><tool_call:s1>${c.name}${pairs((k) => `<arg_key:s1>${k}</arg_key:s1>`, (v) => `<arg_value:s1>${v}</arg_value:s1>`)}</tool_call:s1></tool_calls:s1>`;
    case 'iquest-v2':
      return `<iquestcoder_tool_call>${c.name}\n${pairs((k) => `<arg_key>${k}</arg_key>`, (v) => `<arg_value>${v}</arg_value>\n`)}</iquestcoder_tool_call>`;
    case 'k2-horizon':
      return `<ifm|tool_calls><ifm|tool_call>${c.name}${pairs((k) => `<ifm|arg_key>${k}</ifm|arg_key>`, (v) => `<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>${v}</ifm|arg_value>`)}</ifm|tool_call></ifm|tool_calls>`;
    case 'dots':
      return `<dots_function_call>\n<invoke name="${c.name}">${pairs((k) => `<parameter name="${k}">`, (v) => `${v}</parameter>`)}</invoke>\n</dots_function_call>`;
    default: {
      const unknown: never = variant;
      throw new Error(`unknown variant ${String(unknown)}`);
    }
  }
}
/** FunctionGemma: Gemma 4's call with `<escape>` quotes and its own delimiters. */
function renderFunctionGemma(c: { name: string; arguments: Record<string, unknown> }): string {
  const gemma = renderToolCall(c, 'gemma4');
  return gemma.replaceAll('<|"|>', '<escape>').replace('<|tool_call>', '<start_function_call>').replace('<tool_call|>', '<end_function_call>');
}
// Gemma's strings cannot hold its own quote token; the generators never write `<|`.
const nativeDocument = fc
  .array(
    fc.oneof(
      fc.tuple(prose, xmlCall, fc.constantFrom<TextToolFormat>(...XML_FORMATS)),
      fc.tuple(prose, call, fc.constantFrom<TextToolFormat>(...JSON_FORMATS)),
      fc.tuple(prose, xmlCall, fc.constantFrom(...VARIANTS)),
      fc.tuple(prose, call, fc.constant('function-gemma' as const)),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .chain((parts) =>
    prose.map((end) => ({
      text:
        parts
          .map(([before, c, format]) => {
            let rendered: string;
            if (format === 'function-gemma') rendered = renderFunctionGemma(c);
            else if ((VARIANTS as readonly string[]).includes(format)) rendered = renderVariant(c as { name: string; arguments: Record<string, string> }, format as (typeof VARIANTS)[number]);
            else rendered = renderToolCall(c, format as TextToolFormat);
            return `${before} ${rendered} `;
          })
          .join('') + end,
      calls: parts.map(([, c]) => c),
    })),
  );

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const record = v as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function uniqueCalls(calls: readonly { name: string; arguments: Record<string, unknown> }[]) {
  const seen = new Set<string>();
  return calls.filter((c) => {
    const k = `${c.name}\u0000${canonical(c.arguments)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function stream(text: string, cuts: readonly number[], tools?: readonly string[], options?: ExtractOptions): ToolCallParserEvent[] {
  const parser = createToolCallParser(tools === undefined ? options : { ...options, tools });
  const events: ToolCallParserEvent[] = [];
  let last = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    events.push(...parser.push(text.slice(last, cut)));
    last = cut;
  }
  events.push(...parser.push(text.slice(last)));
  events.push(...parser.end());
  return events;
}

/** `stream` through the sink form: the sink's method calls rebuilt as events. */
function streamIntoSink(text: string, cuts: readonly number[], options?: ExtractOptions): ToolCallParserEvent[] {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  const sink = collectingSink(events);
  let last = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    parser.push(text.slice(last, cut), sink);
    last = cut;
  }
  parser.push(text.slice(last), sink);
  parser.end(sink);
  return events;
}

/** Events with consecutive text, reasoning, and deltas of one call joined: what is left of a chunking. */
function merged(events: readonly ToolCallParserEvent[]): ToolCallParserEvent[] {
  const out: ToolCallParserEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if (last !== undefined && (last.type === 'text' || last.type === 'reasoning') && last.type === event.type) {
      out[out.length - 1] = { type: last.type, text: last.text + event.text };
    } else if (last?.type === 'tool-call-delta' && event.type === 'tool-call-delta' && last.id === event.id) {
      out[out.length - 1] = { ...last, argumentsText: last.argumentsText + event.argumentsText };
    } else {
      out.push(event);
    }
  }
  return out;
}

// Texts that stress the scanner: held-back names, quotes, escapes, brackets, markers, JSON.
const fragment = fc.constantFrom(
  'search(',
  'q="a',
  '")',
  "'",
  '\\',
  '\\"',
  ')',
  '(',
  '[',
  ']',
  '{',
  '}',
  '{"name": "f", "arguments": {"a": 1}}',
  '[TOOL_CALLS]',
  'g{"x": 1}',
  'get_time()',
  ' ',
  '\n',
  'def ',
  'x.y',
  '=',
  ',',
  '<tool_call>',
  'é',
  '😀',
);
const messy = fc.array(fc.oneof(fragment, prose), { maxLength: 30 }).map((parts) => parts.join(''));

// Pieces of every native format's markup, shuffled: openers without closers, closers alone,
// reasoning inside calls and calls inside reasoning.
const nativeFragment = fc.constantFrom(
  '<tool_call>',
  '</tool_call>',
  '\n<function=f>\n',
  '<parameter=a>\n',
  '</parameter>\n',
  '</function>',
  '<seed:tool_call>',
  '<minimax:tool_call><invoke name="g">',
  '<parameter name="a">1</parameter>',
  '</invoke></minimax:tool_call>',
  'g\n<arg_key>k</arg_key><arg_value>v</arg_value>',
  '<\uff5ctool\u2581calls\u2581begin\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{"a": 1}<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581calls\u2581end\uff5c>',
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}',
  '<|tool_call_end|><|tool_calls_section_end|>',
  '<|tool_call>call:g{a:<|"|>x<|"|>}',
  '<tool_call|>',
  '<|channel|>analysis<|message|>',
  '<|channel|>commentary to=functions.f <|constrain|>json<|message|>',
  '<|end|>',
  '<|call|>',
  '[TOOL_CALLS]f[ARGS]',
  '[CALL_ID]abc',
  '>>>g\n',
  '{"b": 2}',
  '<think>',
  '</think>',
  '<|tools_prefix|>[{"f": {}}]<|tools_suffix|>',
  '<\uff5cDSML\uff5c calls><\uff5cDSML\uff5c invoke name="f"><\uff5cDSML\uff5c parameter name="a" string="false">1</\uff5cDSML\uff5c parameter>',
  '</\uff5cDSML\uff5c invoke></\uff5cDSML\uff5c calls>',
  '<\uff5cGCML\uff5ctool_calls><\uff5cGCML\uff5cinvoke name="g">',
  '</\uff5cGCML\uff5cinvoke></\uff5cGCML\uff5ctool_calls>',
  '<tool_calls>',
  '</tool_calls>',
  'g<tool_sep>',
  '<tool_calls:s><tool_call:s>f',
  '<tool_call:s>g',
  '<arg_key:s>k</arg_key:s><arg_value:s>v</arg_value:s>',
  '</tool_call:s>',
  '</tool_calls:s>',
  '<think:s>',
  '\n<think:s>',
  '\r\n',
  ' '.repeat(33),
  '<function name="f">',
  '<param name="a">1</param></function>',
  '</think:s>',
  '<iquestcoder_tool_call>f',
  '</iquestcoder_tool_call>',
  '<ifm|tool_call>g',
  '<ifm|arg_key>k</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>2</ifm|arg_value>',
  '</ifm|tool_call>',
  '<dots_function_call>',
  '</dots_function_call>',
  '<start_function_call>call:f{a:<escape>x<escape>}',
  '<end_function_call>',
  '<tool_call>function\ng\n{"a": 1}</tool_call>',
  '<\uff5ctool_calls_begin\uff5c><\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke><\uff5ctool_call_end\uff5c>',
  '<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|>',
  '<|plamo:begin_tool_arguments:plamo|>{"a": 1}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>',
  '<|plamo:end_tool_requests:plamo|>',
  '<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>',
  '<|tool_call:end|>',
  '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>',
  '<|open|>argument key="a" type="integer"<|sep|>1<|close|>argument<|sep|>',
  '<|close|>call<|sep|><|close|>tools<|sep|>',
  ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="g">',
  ']<]minimax[>[<a>1]<]minimax[>[</a>',
  ']<]minimax[>[</invoke>]<]minimax[>[</tool_call>',
  '<|tool_call:begin|>x1<|tool_call:name|>g<|tool_call:args|>{"a": 1}',
  'search(q="x")',
  '<',
  '>',
  '[',
);
const nativeMessy = fc.array(fc.oneof(nativeFragment, prose), { maxLength: 25 }).map((parts) => parts.join(''));

describe('properties', () => {
  it('finds the calls embedded in random prose, with their arguments, once each', () => {
    fc.assert(
      fc.property(document, ({ text, calls }) => {
        const found = extractToolCalls(text).map((c) => ({ name: c.name, arguments: c.arguments }));
        expect(found).toEqual(uniqueCalls(calls));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same calls as the batch form for any chunking, and loses or repeats no text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          document.map((d) => d.text),
          messy,
        ),
        fc.array(fc.nat(), { maxLength: 20 }),
        (text, rawCuts) => {
          const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
          const events = stream(text, cuts);
          const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
          expect(calls).toEqual(extractToolCalls(text));
          expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the same calls as the batch form for any chunking with an allow-list', () => {
    const tools = ['search', 'get_time', 'g', 'x.y', 'f'];
    fc.assert(
      fc.property(messy, fc.array(fc.nat(), { maxLength: 20 }), (text, rawCuts) => {
        const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
        const events = stream(text, cuts, tools);
        const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
        expect(calls).toEqual(extractToolCalls(text, { tools }));
        expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('reads paths (IDENT::name, ::name, ->name) in call syntax the same for any chunking, one character at a time through both pushes', () => {
    // Runs of names, single and double colons, script boundaries and openings around listed paths.
    const piece = fc.constantFrom('ns', '::', ':', ':::', 'tool', 'tool(', 'std', 'sort(', 'sort', 'a', 'b', 'x.', '请调用', '😀', '(q="x")', '(1)', ' ', '\n', 'ns::tool(', 'a::b::c(', ')', '->', '-', '>', '::sort(', '->tool(');
    const text = fc.array(fc.oneof(piece, fragment), { maxLength: 24 }).map((parts) => parts.join(''));
    const options = fc.constantFrom<ExtractOptions | undefined>(undefined, { tools: ['ns::tool', 'sort', 'a::b::c'] }, { tools: ['tool', 'c', 'b::c'] }, { tools: ['ns::tool'] });
    const oneByOne = (input: string, opts: ExtractOptions | undefined, shortcuts: boolean): ToolCallParserEvent[] => {
      const scanner = new ToolCallScanner(resolveExtractOptions(opts), true, false, shortcuts);
      const events: ToolCallParserEvent[] = [];
      for (let i = 0; i < input.length; i++) events.push(...scanner.push(input.charAt(i)));
      events.push(...scanner.end());
      return events;
    };
    fc.assert(
      fc.property(text, options, fc.array(fc.nat(), { maxLength: 12 }), (input, opts, rawCuts) => {
        const cuts = rawCuts.map((c) => (input.length === 0 ? 0 : c % (input.length + 1)));
        const events = stream(input, cuts, undefined, opts);
        const batch = extractToolCalls(input, opts);
        expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
        expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(input);
        const general = oneByOne(input, opts, false);
        expect(oneByOne(input, opts, true)).toEqual(general);
        expect(general.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
      }),
      { numRuns: 800 },
    );
  });

  it('finds calls written in every native format, embedded in prose', () => {
    fc.assert(
      fc.property(nativeDocument, ({ text, calls }) => {
        // Every format: MiniCPM5's is read only when asked for.
        const found = extractToolCalls(text, { formats: ALL_FORMATS }).map((c) => ({ name: c.name, arguments: c.arguments }));
        expect(found).toEqual(uniqueCalls(calls));
      }),
      { numRuns: 300 },
    );
  });

  // Batch scans a whole text with a scan of its own (see `scanWholeText`): it must find what a
  // stream finds, whichever formats are looked for, on short texts and past the short scan.
  it('gives the same calls in batch as a stream for every choice of formats', () => {
    const choices: ExtractOptions[] = [{ format: 'functionary' }, { formats: ['call', 'json'] }, { formats: ['json', 'functionary', 'glm'] }, { format: 'call' }, { format: 'qwen3-xml' }, { callsInReasoning: true, formats: ['functionary', 'call'] }];
    fc.assert(
      fc.property(fc.array(fc.oneof(nativeMessy, messy), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, rawCuts) => {
        const text = parts.join('');
        const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
        for (const options of choices) {
          const events = stream(text, cuts, undefined, options);
          expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(extractToolCalls(text, options));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same native-format calls and text for any chunking', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          nativeDocument.map((d) => d.text),
          nativeMessy,
        ),
        fc.array(fc.nat(), { maxLength: 20 }),
        (text, rawCuts) => {
          const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
          const events = stream(text, cuts);
          expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(extractToolCalls(text));
          expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
          const allowed = stream(text, cuts, ['f', 'g', 'search']);
          expect(allowed.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(extractToolCalls(text, { tools: ['f', 'g', 'search'] }));
          expect(allowed.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
          for (const options of [{ callsInReasoning: true }, { startInReasoning: true }, { formats: ALL_FORMATS }]) {
            const events = stream(text, cuts, undefined, options);
            expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(extractToolCalls(text, options));
            expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("opens Hunyuan's <think:SUFFIX> reasoning at the same places in batch and streamed (decided on the text before it)", () => {
    const piece = fc.constantFrom('<think:s>', '<think:opensource>', '</think:s>', '</think>', '<think>', '</think:opensource>', '\n', '\r', ' ', '\t', ' '.repeat(31), 'x', 'Ok. ', 'f(a=1)', '<', ':', '>');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), fc.array(fc.nat(), { maxLength: 10 }), (pieces, rawCuts) => {
        const text = pieces.join('');
        const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
        const whole = merged(stream(text, []));
        expect(whole.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(extractToolCalls(text));
        expect(merged(stream(text, cuts))).toEqual(whole);
        expect(merged(stream(text, Array.from({ length: text.length }, (_, i) => i)))).toEqual(whole);
      }),
      { numRuns: 1000 },
    );
  });

  it('streamed one character at a time, or mostly, gives the events of the whole text in one push, merged per kind', () => {
    // One-character pushes take the scanner's per-character paths (characters kept as codes,
    // joined in pieces); one push of the whole text takes the general scan, and longer chunks
    // among single characters switch between the two. Long runs pass the pieces' size;
    // surrogates (paired, lone) and U+FEFF must come out as they went in.
    const long = fc.constantFrom('x'.repeat(1500), `"${'y'.repeat(1100)}"`, '\uD83D\uDE00'.repeat(600));
    const unusual = fc.constantFrom('\uD800', '\uDC00', '\uFEFF', '\uD83D\uDE00', 'é');
    const text = fc.array(fc.oneof(fragment, nativeFragment, prose, long, unusual), { maxLength: 25 }).map((parts) => parts.join(''));
    const sizes = fc.array(fc.constantFrom(1, 1, 1, 1, 1, 2, 3, 7, 40), { minLength: 1, maxLength: 50 });
    fc.assert(
      fc.property(text, fc.constantFrom<ExtractOptions | undefined>(undefined, { tools: ['search', 'f', 'g'] }, { callsInReasoning: true }), sizes, (input, options, steps) => {
        const whole = merged(stream(input, [], undefined, options));
        const parser = createToolCallParser(options);
        const single: ToolCallParserEvent[] = [];
        for (let i = 0; i < input.length; i++) single.push(...parser.push(input.charAt(i)));
        single.push(...parser.end());
        expect(merged(single)).toEqual(whole);
        const cuts: number[] = [];
        for (let at = 0, k = 0; at < input.length; k++) cuts.push((at += steps[k % steps.length] ?? 1));
        expect(merged(stream(input, cuts, undefined, options))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('closes a call streamed a character at a time as the general scan does (its arguments read from their codes)', () => {
    // A call whose arguments all came one character at a time is read at its `)` from a string
    // of the kept codes (`closeStreamedCall`); one push of the whole text, or the same stream with
    // the `)` pushed together with the character before it, reads it the general way.
    const calls = fc.constantFrom(
      'f()',
      'search(q="a", n=2)',
      'search(n="7")',
      'search(n=1, n=2)',
      'f(a=[1)',
      'f(a=(1, 2), b={"k": [1, {"x": null}]})',
      'f(a="\\")")',
      `f(a="${'w'.repeat(40)}\uD83D\uDE00", b='\uD800')`,
      `search(q="${'z'.repeat(1100)}")`,
      "f(a='it''s')",
      'x.y(k=True, m=None)',
    );
    const text = fc
      .array(fc.oneof(calls, document.map((d) => d.text), prose), { minLength: 1, maxLength: 8 })
      .map((parts) => parts.join(' '));
    const typed = { tools: [{ name: 'search', inputSchema: { type: 'object' as const, properties: { n: { type: 'integer' as const } } } }, 'f', 'x.y'] };
    fc.assert(
      fc.property(text, fc.constantFrom<ExtractOptions | undefined>(undefined, typed), (input, options) => {
        const whole = merged(stream(input, [], undefined, options));
        const singles = Array.from({ length: input.length }, (_, i) => i);
        expect(merged(stream(input, singles, undefined, options))).toEqual(whole);
        // Every `)` pushed with the character before it: the general close.
        const paired = singles.filter((i) => input.charAt(i) !== ')');
        expect(merged(stream(input, paired, undefined, options))).toEqual(whole);
        expect(merged(streamIntoSink(input, singles, options))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('hands a sink exactly the events push returns, for any chunking, format and options', () => {
    const singles = fc.constant<number[]>([]);
    fc.assert(
      fc.property(
        fc.oneof(
          document.map((d) => d.text),
          messy,
          nativeDocument.map((d) => d.text),
          nativeMessy,
        ),
        fc.oneof(fc.array(fc.nat(), { maxLength: 20 }), singles),
        fc.constantFrom<ExtractOptions | undefined>(undefined, { tools: ['search', 'f', 'g'] }, { callsInReasoning: true }, { startInReasoning: true }),
        (text, rawCuts, options) => {
          // An empty list of cuts stands for one character per push (a token stream).
          const cuts = rawCuts.length === 0 ? Array.from({ length: text.length }, (_, i) => i) : rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
          expect(streamIntoSink(text, cuts, options)).toEqual(stream(text, cuts, undefined, options));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('streamed one character at a time, takes its shortcuts to exactly the events of the general push', () => {
    // One-character pushes skip the general push where they can (a character inside a span,
    // outside any, a held `[` decided by the next one, a character inside a native block); a
    // scanner built without those shortcuts pushes every character through the general push.
    // The events must be the same, event for event (not merged), through both APIs.
    const quoted = fc.constantFrom('f(a="x(y)[z]{w}", b=\'q"r\', c="\\"")', "g(s='it\\'s', t=\"a'b\")", '[f(a=1), g(b="]")]', '[T', '[[', '[TOOL_CALLS]f[ARGS]{"a": "x"}', '请调用search(q="北京")', '调用f(a=1) 和g()', 'Дsearch(q=1)', 'xsearch(q=1) researcher', 'ns::search(q=1)', 'ns:f(a=1)', '天气search(q=1) 天气(a=1)');
    const text = fc.oneof(
      document.map((d) => d.text),
      messy,
      nativeDocument.map((d) => d.text),
      nativeMessy,
      fc.array(fc.oneof(quoted, fragment, prose), { maxLength: 12 }).map((parts) => parts.join('')),
      // A harmony role part the text may open with (the one-character text path keeps it too).
      fc
        .tuple(
          fc.constantFrom(' to=functions.f', 'to=functions.get_time ', '  to=functions.', ' to', 't', ' ', 'to=browser.x ', ' to=functions.f(a=1)', '[ to=functions.f'),
          fc.array(fc.oneof(fc.constantFrom('<|channel|>analysis<|message|>{"a": 1}', '<|channel|>commentary <|constrain|>json<|message|>{}<|call|>', ' ', 'x'), fragment), { maxLength: 4 }),
        )
        .map(([lead, parts]) => lead + parts.join('')),
    );
    const run = (input: string, options: ExtractOptions | undefined, shortcuts: boolean, sink: boolean): ToolCallParserEvent[] => {
      const scanner = new ToolCallScanner(resolveExtractOptions(options), true, false, shortcuts);
      const events: ToolCallParserEvent[] = [];
      const into = collectingSink(events);
      for (let i = 0; i < input.length; i++) {
        if (sink) scanner.push(input.charAt(i), into);
        else events.push(...scanner.push(input.charAt(i)));
      }
      if (sink) scanner.end(into);
      else events.push(...scanner.end());
      return events;
    };
    fc.assert(
      fc.property(
        text,
        fc.constantFrom<ExtractOptions | undefined>(undefined, { tools: ['search', 'f', 'g'] }, { tools: ['ns::search', 'f'] }, { tools: ['天气', 'search'] }, { callsInReasoning: true }, { startInReasoning: true }),
        (input, options) => {
          const general = run(input, options, false, false);
          expect(run(input, options, true, false)).toEqual(general);
          expect(run(input, options, true, true)).toEqual(general);
          expect(run(input, options, false, true)).toEqual(general);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('with a bound on spans (maxCallChars), gives the same calls as batch and the same events for any chunking, and loses no text', () => {
    // Small bounds give spans up everywhere: calls, JSON objects, native blocks, markers waiting
    // for their end token, blocks waiting for their trailer, at every position of the bound.
    // Where the stream notices the bound depends on the chunking (a chunk, a buffer of codes),
    // so only its argument deltas may differ: every other event must be the same.
    const long = fc.constantFrom(
      'x'.repeat(70),
      `"${'y'.repeat(50)}"`,
      ' '.repeat(40),
      `f(a="${'z'.repeat(30)}`,
      // A Kimi call waiting for its end token, a Qwen3 XML block for its trailer, across space.
      `<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}${' '.repeat(12)}<|tool_call_end|>`,
      '<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}',
      `<function=f>\n<parameter=a>\n1\n</parameter>\n</function>${' '.repeat(9)}</tool_call>`,
      '</function>\n</tool_call>',
    );
    const text = fc.oneof(
      document.map((d) => d.text),
      messy,
      nativeDocument.map((d) => d.text),
      nativeMessy,
      fc.array(fc.oneof(fragment, nativeFragment, prose, long), { maxLength: 16 }).map((parts) => parts.join('')),
    );
    const options = fc.tuple(
      fc.integer({ min: 1, max: 80 }),
      fc.constantFrom<ExtractOptions>({}, { tools: ['search', 'f', 'g'] }, { callsInReasoning: true }, { startInReasoning: true }, { formats: ALL_FORMATS }),
    );
    const withoutDeltas = (events: readonly ToolCallParserEvent[]) => merged(events.filter((e) => e.type !== 'tool-call-delta'));
    const oneByOne = (input: string, opts: ExtractOptions, shortcuts: boolean): ToolCallParserEvent[] => {
      const scanner = new ToolCallScanner(resolveExtractOptions(opts), true, false, shortcuts);
      const events: ToolCallParserEvent[] = [];
      for (let i = 0; i < input.length; i++) events.push(...scanner.push(input.charAt(i)));
      events.push(...scanner.end());
      return events;
    };
    fc.assert(
      fc.property(text, options, fc.array(fc.nat(), { maxLength: 12 }), (input, [maxCallChars, base], rawCuts) => {
        const opts = { ...base, maxCallChars };
        const cuts = rawCuts.map((c) => (input.length === 0 ? 0 : c % (input.length + 1)));
        const batch = extractToolCalls(input, opts);
        const events = stream(input, cuts, undefined, opts);
        expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
        expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(input);
        for (const event of events) {
          if (event.type === 'tool-call' || (event.type === 'incomplete' && event.reason === 'too-long')) expect(event.text.length).toBeLessThanOrEqual(maxCallChars);
        }
        expect(streamIntoSink(input, cuts, opts)).toEqual(events);
        const whole = withoutDeltas(stream(input, [], undefined, opts));
        expect(withoutDeltas(events)).toEqual(whole);
        expect(withoutDeltas(oneByOne(input, opts, true))).toEqual(whole);
        expect(withoutDeltas(oneByOne(input, opts, false))).toEqual(whole);
      }),
      { numRuns: 1000 },
    );
  });

  it('with no bound (maxCallChars 0), reads a span of any length', () => {
    const input = `f(a="${'x'.repeat(3000)}") g(b=1)`;
    expect(extractToolCalls(input, { maxCallChars: 0 })).toEqual([
      { id: 'f_0', name: 'f', arguments: { a: 'x'.repeat(3000) } },
      { id: 'g_1', name: 'g', arguments: { b: 1 } },
    ]);
    expect(extractToolCalls(input, { maxCallChars: 3000 })).toEqual([{ id: 'g_0', name: 'g', arguments: { b: 1 } }]);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(() => extractToolCalls(text)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
