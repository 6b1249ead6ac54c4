// Throughput of extraction (batch and streaming) on prose, the real corpus and adversarial
// input, each beside JSON.parse on a JSON document of the same content, in the same run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createToolCallParser, extractToolCalls, renderToolCall } from '@toolwire/extract';
import type { ExtractOptions, TextToolFormat, ToolCallParserEvent, ToolCallSink } from '@toolwire/extract';
import { compare as compareAll, printTable } from '../../../bench/harness.ts';
import type { CaseResult, Comparison } from '../../../bench/harness.ts';
// Internal: what withTextToolCalling runs on a model's text, measured without a model around it.
import { TextToolsDecoder } from '../src/text-tools-decoder.ts';

const MB = 1024 * 1024;

// TOOLWIRE_BENCH_SECTIONS=h (or d,d2,h ...) runs only those sections; unset, all of them.
const sections = process.env.TOOLWIRE_BENCH_SECTIONS?.split(',').map((s) => s.trim()).filter((s) => s !== '');
const wanted = (section: string): boolean => sections === undefined || sections.length === 0 || sections.includes(section);

/** The harness's `compare`, skipped unless its section (the title's leading `(x)`) is wanted. */
async function compare(comparison: Comparison): Promise<CaseResult[]> {
  const section = /^\(([a-z0-9]+)\)/.exec(comparison.title)?.[1] ?? '';
  return wanted(section) ? compareAll(comparison) : [];
}

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * The same content as JSON: prose as strings, calls as `{name, arguments}` objects. Read
 * through a sink, not as events: `push` of a whole 10 MB text returns every event of it in one
 * array, which a token stream never holds. Kept alive through young collections while V8 still
 * watches the parser's allocation sites, they made it allocate the objects of those sites (the
 * streamed calls and some events) in the old generation for the rest of the run, in some
 * processes and not others, and the streaming rows below were measured in that state.
 */
function asJson(text: string): string {
  const parser = createToolCallParser();
  const parts: unknown[] = [];
  const keep = (span: string): void => {
    parts.push(span);
  };
  const sink: ToolCallSink = {
    onText: keep,
    onReasoningStart: keep,
    onReasoning: keep,
    onReasoningEnd: keep,
    onToolCall: (call) => {
      parts.push({ name: call.name, arguments: call.arguments });
    },
    onToolCallDiscarded: (_id, span) => {
      parts.push(span);
    },
    onIncomplete: keep,
  };
  parser.push(text, sink);
  parser.end(sink);
  return JSON.stringify(parts);
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/*
 * The streaming loops below are indexed loops, not `for…of`: run once per pass over ~460,000
 * one-character chunks, a `for…of` loop is only compiled on-stack and then calls the array
 * iterator for every chunk, 8–10 ns per push of harness (measured in session 17) charged to
 * the parser. The batch rows make one call per text and pay no such loop. A real caller's own
 * per-chunk cost (reading a socket, SSE) is larger still and is not the parser's either.
 */
function countCalls(events: readonly ToolCallParserEvent[]): number {
  let calls = 0;
  for (let i = 0; i < events.length; i++) if (events[i]?.type === 'tool-call') calls++;
  return calls;
}

function stream(parts: readonly string[]): number {
  const parser = createToolCallParser();
  let calls = 0;
  for (let i = 0; i < parts.length; i++) calls += countCalls(parser.push(parts[i] ?? ''));
  return calls + countCalls(parser.end());
}

/**
 * Each text streamed by a parser of its own, as real use does (a gateway or `withTextToolCalling`
 * makes one per model response): what setting up a parser costs counts.
 */
function streamEach(texts: readonly (readonly string[])[]): number {
  let calls = 0;
  for (let t = 0; t < texts.length; t++) {
    const parts = texts[t] ?? [];
    const parser = createToolCallParser();
    for (let i = 0; i < parts.length; i++) calls += countCalls(parser.push(parts[i] ?? ''));
    calls += countCalls(parser.end());
  }
  return calls;
}

/** `streamEach` through the sink form; `tools[t]`, when given, is text `t`'s allow-list. */
function streamEachIntoSink(texts: readonly (readonly string[])[], tools?: readonly (readonly string[])[]): number {
  let calls = 0;
  const sink: ToolCallSink = {
    onToolCall: () => {
      calls++;
    },
  };
  for (let t = 0; t < texts.length; t++) {
    const parts = texts[t] ?? [];
    const parser = createToolCallParser(tools === undefined ? undefined : { tools: tools[t] ?? [] });
    for (let i = 0; i < parts.length; i++) parser.push(parts[i] ?? '', sink);
    parser.end(sink);
  }
  return calls;
}

/**
 * The same stream through the sink form (`push(chunk, sink)`): the same events as method calls,
 * no event object per push. Counts calls as `stream` does.
 */
function streamIntoSink(parts: readonly string[]): number {
  const parser = createToolCallParser();
  let calls = 0;
  const sink: ToolCallSink = {
    onToolCall: () => {
      calls++;
    },
  };
  for (let i = 0; i < parts.length; i++) parser.push(parts[i] ?? '', sink);
  parser.end(sink);
  return calls;
}

const bytes = (s: string): number => Buffer.byteLength(s);

/** The events `withTextToolCalling` makes of an answer pushed in `parts` (its decoder, without a model around it). */
/** `unit` repeated to about `size` characters. */
function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.floor(size / unit.length));
}

function decodeShown(parts: readonly string[]): number {
  const decoder = new TextToolsDecoder({}, false);
  let events = 0;
  for (let i = 0; i < parts.length; i++) events += decoder.push(parts[i] ?? '').length;
  return events + decoder.end().length;
}

/**
 * What the streaming event API costs by itself, as a reference for section (h): a stand-in
 * that scans nothing, keeps every byte of a line and returns a new one-event array per push
 * (the parser returns about as many: one delta per byte of call arguments, most of the corpus).
 */
class EventApiFloor {
  private kept = '';

  push(chunk: string): readonly { type: string; id: string; argumentsText: string }[] {
    this.kept = chunk === '\n' ? '' : this.kept + chunk;
    return [{ type: 'tool-call-delta', id: 'f_0', argumentsText: chunk }];
  }
}

function streamFloor(parts: readonly string[]): number {
  const parser = new EventApiFloor();
  let calls = 0;
  for (let i = 0; i < parts.length; i++) {
    const events = parser.push(parts[i] ?? '');
    for (let j = 0; j < events.length; j++) if (events[j]?.type === 'tool-call') calls++;
  }
  return calls;
}

/**
 * Five events, one of each shape the parser returns for the corpus (text, tool-call-start,
 * tool-call-delta, tool-call, tool-call-discarded): a consumer that has read them all reads
 * `type` from five hidden classes, which V8 reads through its megamorphic path (more than four).
 */
const EVERY_KIND: readonly ToolCallParserEvent[] = [
  { type: 'text', text: 'x' },
  { type: 'tool-call-start', id: 'f_0', name: 'f' },
  { type: 'tool-call-delta', id: 'f_0', argumentsText: 'x' },
  { type: 'tool-call', toolCall: { id: 'f_0', name: 'f', arguments: {} }, text: 'f()' },
  { type: 'tool-call-discarded', id: 'f_0', text: 'f()', reason: 'duplicate' },
];

function countFloorCalls(events: readonly { type: string }[]): number {
  let calls = 0;
  for (let j = 0; j < events.length; j++) if (events[j]?.type === 'tool-call') calls++;
  return calls;
}

/**
 * Shows `countFloorCalls` every kind of event, right before section (h) measures: V8 records
 * what a function reads only from its first few calls on, and may drop what it recorded for
 * a function left unused through a long run (shown every kind once at the start of each pass,
 * it measured as fast as a consumer that had seen delta events only).
 */
function showEveryKind(): void {
  for (let k = 0; k < 20; k++) countFloorCalls(EVERY_KIND);
}

/**
 * The floor above, read as a real consumer reads the parser's events: one that has seen every
 * kind of event (`countCalls` above, or a `switch (event.type)` as the README shows, does on
 * this corpus; see `showEveryKind`).
 */
function streamFloorEveryKind(parts: readonly string[]): number {
  const parser = new EventApiFloor();
  let calls = 0;
  for (let i = 0; i < parts.length; i++) calls += countFloorCalls(parser.push(parts[i] ?? ''));
  return calls;
}

/** The sink form's reference: the same loop, with a push that does nothing. */
function sinkFloor(parts: readonly string[]): number {
  const parser = new SinkApiFloor();
  const sink: ToolCallSink = {};
  for (let i = 0; i < parts.length; i++) parser.push(parts[i] ?? '', sink);
  return parser.pushes;
}

class SinkApiFloor {
  pushes = 0;

  push(_chunk: string, _sink: ToolCallSink): void {
    this.pushes++;
  }
}

// (a) 10 MB of prose with sparse calls.
const WORDS = 'the model answered that the weather in Paris is mild and sunny while traffic was light, so I will check again later today'.split(' ');
const random = lcg(7);
const proseParts: string[] = [];
let proseLength = 0;
while (proseLength < 10 * MB) {
  let sentence = '';
  for (let w = 0; w < 12; w++) sentence += `${WORDS[Math.floor(random() * WORDS.length)] ?? 'the'} `;
  sentence += random() < 0.02 ? `search_docs(query="item ${proseParts.length}", limit=${proseParts.length % 50}). ` : '. ';
  if (proseParts.length % 8 === 7) sentence += '\n\n';
  proseParts.push(sentence);
  proseLength += sentence.length;
}
const prose = proseParts.join('');
const proseJson = asJson(prose);

// (b) the corpus texts, concatenated.
const entries = gunzipSync(readFileSync(new URL('../src/__fixtures__/bfcl-airev-agent-0.8b.jsonl.gz', import.meta.url)))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { text: string; tools: string[] });
const corpus = entries.map((entry) => entry.text).join('\n');
const corpusJson = asJson(corpus);

// (c) adversarial input: nested unclosed calls, and an unclosed quote.
const nested1 = 'a('.repeat(MB / 2);
const nested2 = 'a('.repeat(MB);
const quote1 = `f(a="${'x'.repeat(MB - 5)}`;
const quote2 = `f(a="${'x'.repeat(2 * MB - 5)}`;
const adversarialJson = JSON.stringify([nested1]);

console.log(`prose: ${(bytes(prose) / MB).toFixed(1)} MB, ${extractToolCalls(prose).length} calls; corpus: ${(bytes(corpus) / MB).toFixed(2)} MB, ${extractToolCalls(corpus).length} calls`);

await compare({
  title: '(a) 10 MB of prose with sparse calls',
  baseline: { name: 'JSON.parse (same content)', bytes: bytes(proseJson), fn: () => JSON.parse(proseJson) as unknown },
  cases: [
    { name: 'extractToolCalls, any name', bytes: bytes(prose), fn: () => extractToolCalls(prose) },
    { name: 'extractToolCalls, allow-list', bytes: bytes(prose), fn: () => extractToolCalls(prose, { tools: ['search_docs'] }) },
  ],
});

const corpus1 = chunks(corpus, 1);
const corpus16 = chunks(corpus, 16);
const corpus4k = chunks(corpus, 4096);
await compare({
  title: '(b) the corpus texts concatenated, batch and streaming',
  baseline: { name: 'JSON.parse (same content)', bytes: bytes(corpusJson), fn: () => JSON.parse(corpusJson) as unknown },
  cases: [
    { name: 'extractToolCalls', bytes: bytes(corpus), fn: () => extractToolCalls(corpus) },
    { name: 'streaming, 4 KB chunks', bytes: bytes(corpus), fn: () => stream(corpus4k) },
    { name: 'streaming, 16-byte chunks', bytes: bytes(corpus), fn: () => stream(corpus16) },
    { name: 'streaming, 1-byte chunks', bytes: bytes(corpus), fn: () => stream(corpus1) },
    { name: 'streaming, 1-byte chunks, sink form', bytes: bytes(corpus), fn: () => streamIntoSink(corpus1) },
  ],
});

await compare({
  title: '(c) adversarial input at 1 MB and 2 MB (equal MB/s means linear)',
  baseline: { name: 'JSON.parse (1 MB as a string)', bytes: bytes(adversarialJson), fn: () => JSON.parse(adversarialJson) as unknown },
  cases: [
    { name: 'a(a(a(… 1 MB', bytes: nested1.length, fn: () => extractToolCalls(nested1) },
    { name: 'a(a(a(… 2 MB', bytes: nested2.length, fn: () => extractToolCalls(nested2) },
    { name: 'unclosed quote 1 MB', bytes: quote1.length, fn: () => extractToolCalls(quote1) },
    { name: 'unclosed quote 2 MB', bytes: quote2.length, fn: () => extractToolCalls(quote2) },
  ],
});

// (d) One call per model output, as real use does: setup per call counts.
const outputs = entries.map((entry) => entry.text);
const outputJson = outputs.map((text) => JSON.stringify(extractToolCalls(text).map((c) => ({ name: c.name, arguments: c.arguments }))));
const outputBytes = outputs.reduce((sum, text) => sum + bytes(text), 0);
const outputJsonBytes = outputJson.reduce((sum, text) => sum + bytes(text), 0);
const perOutput = await compare({
  title: `(d) per model output: ${outputs.length} outputs, one extractToolCalls call each (ops = passes over all outputs)`,
  baseline: {
    name: 'JSON.parse of each output\'s calls',
    bytes: outputJsonBytes,
    fn: () => {
      for (const json of outputJson) JSON.parse(json);
    },
  },
  cases: [
    {
      name: 'extractToolCalls, any name',
      bytes: outputBytes,
      fn: () => {
        for (const text of outputs) extractToolCalls(text);
      },
    },
    {
      name: 'extractToolCalls, allow-list',
      bytes: outputBytes,
      fn: () => {
        for (const entry of entries) extractToolCalls(entry.text, { tools: entry.tools });
      },
    },
    {
      // The allow-list rows walk the corpus's entry objects (text and list side by side); the
      // any-name row above walks a plain array of texts. This row walks the entries as they do,
      // so that the allow-list's cost is compared with the loop it runs in, not with a lighter one.
      name: 'extractToolCalls, any name, looping over the entries like the allow-list rows',
      bytes: outputBytes,
      fn: () => {
        for (const entry of entries) extractToolCalls(entry.text);
      },
    },
    {
      // A server decoding each request's tools gets a new list every time: nothing resolved
      // for an earlier call helps.
      name: 'extractToolCalls, allow-list, a new list per call',
      bytes: outputBytes,
      fn: () => {
        for (const entry of entries) extractToolCalls(entry.text, { tools: [...entry.tools] });
      },
    },
  ],
  timeMs: 1500,
});
// The ratio above compares MB/s of different texts; per output is what the issue asks for.
const [jsonRow, anyRow, allowRow, anyEntriesRow] = perOutput;
if (jsonRow !== undefined && anyRow !== undefined && allowRow !== undefined && anyEntriesRow !== undefined) {
  console.log(
    `per output: any name ${(anyRow.opsPerSec / jsonRow.opsPerSec).toFixed(2)}x JSON.parse, allow-list ${(allowRow.opsPerSec / jsonRow.opsPerSec).toFixed(2)}x; allow-list costs ${((anyEntriesRow.opsPerSec / allowRow.opsPerSec - 1) * 100).toFixed(0)}% over any name in the same loop over the entries (${((anyRow.opsPerSec / allowRow.opsPerSec - 1) * 100).toFixed(0)}% over the any-name row, whose loop reads a plain array of texts)`,
  );
}

// The same outputs through a Python `ast` decoder (BFCL / vLLM pythonic style), in this run.
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
if (!wanted('d2')) {
  // not asked for
} else if (python.status !== 0) {
  console.log('\n(d2) Python ast decoder: skipped, python3 is not available on this machine.');
} else {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-bench-'));
  try {
    const file = join(dir, 'outputs.json');
    writeFileSync(file, JSON.stringify(outputs));
    const pythonRate = (): number => {
      const run = spawnSync('python3', [new URL('./python-ast-decoder.py', import.meta.url).pathname, file, '1'], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
      return (JSON.parse(run.stdout) as { outputsPerSec: number }).outputsPerSec;
    };
    // Python reports CPU time; measure ours the same way, so that other load on the machine
    // does not tilt the ratio.
    const cpuRate = (fn: () => void): number => {
      for (let w = 0; w < 5; w++) fn();
      const start = process.cpuUsage();
      const wall = performance.now();
      let passes = 0;
      while (performance.now() - wall < 1000) {
        fn();
        passes++;
      }
      const used = process.cpuUsage(start);
      return (passes * outputs.length) / ((used.user + used.system) / 1e6);
    };
    // Three interleaved rounds of one second each, best of each side: load that comes and goes
    // on a shared machine would otherwise favour whichever side ran in the quieter seconds.
    let outputsPerSec = 0;
    let ours = 0;
    let oursAllow = 0;
    for (let round = 0; round < 3; round++) {
      outputsPerSec = Math.max(outputsPerSec, pythonRate());
      ours = Math.max(
        ours,
        cpuRate(() => {
          for (const text of outputs) extractToolCalls(text);
        }),
      );
      oursAllow = Math.max(
        oursAllow,
        cpuRate(() => {
          for (const entry of entries) extractToolCalls(entry.text, { tools: entry.tools });
        }),
      );
    }
    const row = (name: string, rate: number) => ({ name, opsPerSec: rate, mbPerSec: undefined, meanMs: 1000 / rate, p50Ms: 1000 / rate, p99Ms: 1000 / rate, ratio: rate / outputsPerSec });
    printTable('(d2) per model output vs a Python ast decoder on the same outputs (ops = outputs per CPU second)', [
      row('Python 3 ast decoder (python3)', outputsPerSec),
      row('extractToolCalls, any name', ours),
      row('extractToolCalls, allow-list', oursAllow),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// (e) What the native formats cost on prose: the same text with call syntax and JSON only.
await compare({
  title: '(e) 10 MB of prose: every format vs call syntax + JSON only (the cost of auto-detecting native formats)',
  baseline: { name: 'formats: call + json', bytes: bytes(prose), fn: () => extractToolCalls(prose, { formats: ['call', 'json'] }) },
  cases: [{ name: 'all formats (default)', bytes: bytes(prose), fn: () => extractToolCalls(prose) }],
});

// (f) Native formats: outputs of every family, per output and streamed.
const NATIVE: TextToolFormat[] = ['hermes', 'qwen3-xml', 'seed-oss', 'minimax-m2', 'glm', 'deepseek', 'deepseek-dsml', 'kimi-k2', 'gemma4', 'harmony', 'mistral', 'functionary', 'apertus'];
const nativeOutputs: string[] = [];
const nativeJson: string[] = [];
for (let i = 0; i < 2000; i++) {
  const format = NATIVE[i % NATIVE.length] ?? 'hermes';
  const calls = [
    { name: 'get_weather', arguments: { city: `City ${i}`, unit: i % 2 === 0 ? 'celsius' : 'fahrenheit' } },
    { name: 'search_docs', arguments: { query: `item ${i} with "quotes" and <tags>`, limit: String(i % 50) } },
  ].slice(0, 1 + (i % 2));
  nativeOutputs.push(`Let me check that for you.\n${calls.map((call) => renderToolCall(call, format)).join('\n')}`);
  nativeJson.push(JSON.stringify(calls));
}
const nativeText = nativeOutputs.join('\n');
const native1 = chunks(nativeText, 1);
await compare({
  title: `(f) native formats: ${nativeOutputs.length} outputs over ${NATIVE.length} families, per output`,
  baseline: {
    name: 'JSON.parse of each output\'s calls',
    bytes: nativeJson.reduce((sum, text) => sum + bytes(text), 0),
    fn: () => {
      for (const json of nativeJson) JSON.parse(json);
    },
  },
  cases: [
    {
      name: 'extractToolCalls per output',
      bytes: nativeOutputs.reduce((sum, text) => sum + bytes(text), 0),
      fn: () => {
        for (const text of nativeOutputs) extractToolCalls(text);
      },
    },
  ],
});
await compare({
  title: '(f2) native formats concatenated: streaming vs batch',
  baseline: { name: 'extractToolCalls (batch)', bytes: bytes(nativeText), fn: () => extractToolCalls(nativeText) },
  cases: [
    { name: 'streaming, 1-byte chunks', bytes: bytes(nativeText), fn: () => stream(native1) },
    { name: 'streaming, 1-byte chunks, sink form', bytes: bytes(nativeText), fn: () => streamIntoSink(native1) },
  ],
});

// (g) Adversarial input for every native format at 1 MB and 2 MB (equal MB/s means linear).
// A third element: the options (a format read only when asked for).
const adversarial: [string, (size: number) => string, ExtractOptions?][] = [
  ['open <tool_call> + 1 MB of <parameter=', (size) => `<tool_call>\n<function=f>\n${'<parameter='.repeat(size / 11)}`],
  ['closed block of <parameter= text', (size) => `<tool_call>\n<function=f>\n<parameter=a>\n${'x <parameter='.repeat(size / 13)}\n</parameter>\n</function>\n</tool_call>`],
  ['<tool_call> repeated', (size) => '<tool_call>'.repeat(size / 11)],
  ['<function=f> repeated (no body)', (size) => '<function=f>'.repeat(size / 12)],
  ['GLM <arg_key> unclosed', (size) => `<tool_call>f\n${'<arg_key>k'.repeat(size / 10)}`],
  ['DeepSeek begin tokens nested', (size) => '<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>'.repeat(size / 42)],
  ['Kimi section with unclosed calls', (size) => `<|tool_calls_section_begin|>${'<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{'.repeat(size / 64)}`],
  ['Gemma unclosed string', (size) => `<|tool_call>call:f{a:<|"|>${'x'.repeat(size)}`],
  ['harmony headers without message', (size) => '<|channel|>commentary to=functions.f '.repeat(size / 38)],
  ['Mistral [TOOL_CALLS] nested', (size) => '[TOOL_CALLS]f[ARGS]{"a":'.repeat(size / 24)],
  ['Functionary >>> repeated', (size) => '>>>f\n{'.repeat(size / 6)],
  ['<think> never closed', (size) => `<think>${'f(a=1) '.repeat(size / 7)}`],
  ['many [THINK] blocks', (size) => '[THINK]f(a=1)[/THINK]g(b=2) '.repeat(size / 29)],
  // Newer spellings: openers that never close, and headers that never decide.
  ['DeepSeek V4.1 / GigaChat 3.5 openers unclosed', (size) => '<\uff5cDSML\uff5c calls><\uff5cDSML\uff5c invoke name="f"><\uff5cGCML\uff5ctool_calls>'.repeat(size / 56)],
  ['Hunyuan suffixed tags unclosed', (size) => '<tool_calls:s><tool_call:s>f<arg_key:s>k'.repeat(size / 40)],
  ['Hunyuan suffix headers undecided', (size) => `<tool_call:${'x'.repeat(60)} `.repeat(size / 72)],
  ['HY v3 <tool_sep> calls unclosed', (size) => '<tool_call>f<tool_sep><arg_key>k</arg_key><arg_value>'.repeat(size / 53)],
  ['IQuest / K2 Horizon / dots openers unclosed', (size) => '<iquestcoder_tool_call>f<arg_key>k<ifm|tool_call>f<ifm|arg_key>k<dots_function_call><invoke name="f">'.repeat(size / 101)],
  ['FunctionGemma unclosed string', (size) => `<start_function_call>call:f{a:<escape>${'x'.repeat(size)}`],
  ['MiniMax M3 nested elements unclosed', (size) => `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">${']<]minimax[>[<a>'.repeat(size / 16)}`],
  ['MiniMax M3 blocks unclosed', (size) => ']<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>'.repeat(size / 70)],
  ['Kimi K3 calls unclosed', (size) => '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="string"<|sep|>'.repeat(size / 103)],
  ['Kimi K3 call headers without <|sep|>', (size) => `<|open|>tools<|sep|>${'<|open|>call'.repeat(size / 12)}<|close|>tools<|sep|>`],
  ['Kimi K3 argument headers without <|sep|>', (size) => `<|open|>tools<|sep|><|open|>call tool="f"<|sep|>${'<|open|>argument'.repeat(size / 16)}<|close|>tools<|sep|>`],
  ['MiniCPM5 headers without >', (size) => '<function name="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.repeat(size / 65), { formats: ['functionary', 'minicpm5'] }],
  ['MiniCPM5 calls unclosed', (size) => '<function name="f"><param name="a">x'.repeat(size / 36), { format: 'minicpm5' }],
  ['MiniCPM5 params unclosed', (size) => `<function name="f">${'<param name="k">'.repeat(size / 16)}</function>`, { format: 'minicpm5' }],
  ['PLaMo 3 requests unclosed', (size) => '<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{'.repeat(size / 167)],
  ['Solar Open openers unclosed', (size) => '<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|><|tool_call:begin|>x<|tool_call:name|>f<|tool_call:args|>{'.repeat(size / 116)],
  // Many closed blocks in one text: a closing token that never comes must not be looked for
  // in the whole rest of the text per block.
  ...(['deepseek', 'gemma4', 'kimi-k2', 'kimi-k3', 'deepseek-dsml', 'qwen3-xml', 'mistral', 'solar-open', 'minimax-m3', 'plamo3'] as const).map(
    (format): [string, (size: number) => string] => [
      `many ${format} blocks`,
      (size) => {
        const one = `ok ${renderToolCall({ name: 'get_weather', arguments: { city: 'Paris', n: 1 } }, format)}\n`;
        const parts: string[] = [];
        for (let i = 0; i * one.length < size; i++) parts.push(one.replace('Paris', `P${i}`));
        return parts.join('');
      },
    ],
  ),
];
for (const [name, make, options] of adversarial) {
  const one = make(MB);
  const two = make(2 * MB);
  await compare({
    title: `(g) adversarial, ${name}: 1 MB vs 2 MB (ratio near 1.00x means linear)`,
    baseline: { name: '1 MB', bytes: one.length, fn: () => extractToolCalls(one, options) },
    cases: [{ name: '2 MB', bytes: two.length, fn: () => extractToolCalls(two, options) }],
    timeMs: 300,
  });
}

// (g2) Adversarial input streamed one byte at a time (a token stream): each byte is a push,
// and what a push keeps or holds back must not be read again per byte.
const streamedAdversarial: [string, (size: number) => string][] = [
  ['a(a(a(…', (size) => 'a('.repeat(size / 2)],
  ['unclosed quote', (size) => `f(a="${'x'.repeat(size - 5)}`],
  ...adversarial
    .filter(([name]) =>
      ['open <tool_call> + 1 MB of <parameter=', 'Kimi section with unclosed calls', 'Gemma unclosed string', 'Mistral [TOOL_CALLS] nested', '<think> never closed'].includes(name),
    )
    .map(([name, make]): [string, (size: number) => string] => [name, make]),
];
for (const [name, make] of streamedAdversarial) {
  const one = chunks(make(MB), 1);
  const two = chunks(make(2 * MB), 1);
  await compare({
    title: `(g2) adversarial streamed 1 byte at a time, ${name}: 1 MB vs 2 MB (ratio near 1.00x means linear)`,
    baseline: { name: '1 MB', bytes: one.length, fn: () => stream(one) },
    cases: [{ name: '2 MB', bytes: two.length, fn: () => stream(two) }],
    // A pass takes 50–200 ms: a second per case gives enough passes to see past a busy moment.
    timeMs: 1000,
  });
}

// (g3) What `withTextToolCalling` shows of an answer streamed one byte at a time (its decoder
// and the cleaner that leaves out what wrapped a call): text that may open or close a call is
// held back while it may, and must not be read again per byte.
const shownAdversarial: [string, (size: number) => string][] = [
  ['a call, then 1 MB of backticks', (size) => `f(a=1)${'`'.repeat(size - 6)}`],
  ['<|a|> tokens that may open a call', (size) => '<|a|>'.repeat(size / 5)],
  ['leading blank space (it may still be a (no content) placeholder)', (size) => `${' '.repeat(size - 1)}x`],
  ['Action: ``` openers', (size) => 'Action: ```json\n'.repeat(size / 16)],
  ['calls in <tools> wrappers', (size) => '<tools>f(a=1)</tools>\n'.repeat(size / 22)],
  // Long text the cleaner shows: runs of framing characters, and truncated native blocks (shown
  // whole as one text at the end), built by runs rather than a character at a time.
  ['commas after a word', (size) => `x${','.repeat(size - 1)}`],
  ['spaces after a word', (size) => `x${' '.repeat(size - 1)}`],
  ['brackets after a call', (size) => `f(a=1)${'[]'.repeat((size - 6) / 2)}`],
  ['a run of [ (each may open a list of calls)', (size) => `x${'['.repeat(size - 1)}`],
  ['markers in prose (each may wrap a call)', (size) => repeatTo('a <|end|> b </tool_call> ', size)],
  ['PLaMo 3 requests left open', (size) => repeatTo('<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>', size)],
  ['Kimi K3 calls left open', (size) => repeatTo('<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>', size)],
];
for (const [name, make] of shownAdversarial) {
  const one = chunks(make(MB), 1);
  const two = chunks(make(2 * MB), 1);
  await compare({
    title: `(g3) withTextToolCalling's shown text, streamed 1 byte at a time, ${name}: 1 MB vs 2 MB (ratio near 1.00x means linear)`,
    baseline: { name: '1 MB', bytes: one.length, fn: () => decodeShown(one) },
    cases: [{ name: '2 MB', bytes: two.length, fn: () => decodeShown(two) }],
    timeMs: 1000,
  });
}

// (h) The issue's targets in CPU time, interleaved rounds, best of each: other processes on a
// shared machine slow every case of a wall-clock table unevenly; CPU time is steadier.
if (wanted('h')) {
  // What the list reads of the diagnostics below add up to (kept, so that the reads are not removed as dead code).
  let listRead = 0;
  // Each output a byte at a time, for a parser per output.
  const outputs1 = outputs.map((text) => chunks(text, 1));
  const outputTools = entries.map((entry) => entry.tools);
  const cases: Record<string, () => void> = {
    jsonPerOutput: () => {
      for (const json of outputJson) JSON.parse(json);
    },
    anyPerOutput: () => {
      for (const text of outputs) extractToolCalls(text);
    },
    allowPerOutput: () => {
      for (const entry of entries) extractToolCalls(entry.text, { tools: entry.tools });
    },
    anyEntriesPerOutput: () => {
      for (const entry of entries) extractToolCalls(entry.text);
    },
    // A diagnostic of the allow-list's cost, not a target: both loops first read every listed
    // name, so that the scanner finds the caller's list in the cache, then extract with and
    // without the list. Without those reads, the allow-list row also waits for the caller's
    // list to come from memory (three dependent reads: the array, its element store, each
    // name; see bench/RESULTS.md, session 24); the two costs overlap, so they do not add up.
    anyEntriesListReadPerOutput: () => {
      let length = 0;
      for (const entry of entries) {
        const tools = entry.tools;
        for (let i = 0; i < tools.length; i++) length += tools[i]?.length ?? 0;
        extractToolCalls(entry.text);
      }
      listRead += length;
    },
    allowListReadPerOutput: () => {
      let length = 0;
      for (const entry of entries) {
        const tools = entry.tools;
        for (let i = 0; i < tools.length; i++) length += tools[i]?.length ?? 0;
        extractToolCalls(entry.text, { tools });
      }
      listRead += length;
    },
    allowNewListPerOutput: () => {
      for (const entry of entries) extractToolCalls(entry.text, { tools: [...entry.tools] });
    },
    corpusBatch: () => extractToolCalls(corpus),
    corpus1Byte: () => stream(corpus1),
    corpus1ByteFloor: () => streamFloor(corpus1),
    corpus1ByteFloorEveryKind: () => streamFloorEveryKind(corpus1),
    corpus1ByteSink: () => streamIntoSink(corpus1),
    corpus1ByteSinkFloor: () => sinkFloor(corpus1),
    outputs1Byte: () => streamEach(outputs1),
    outputs1ByteSink: () => streamEachIntoSink(outputs1),
    outputs1ByteSinkAllow: () => streamEachIntoSink(outputs1, outputTools),
    proseCallJson: () => extractToolCalls(prose, { formats: ['call', 'json'] }),
    proseAll: () => extractToolCalls(prose),
    proseJson: () => JSON.parse(proseJson) as unknown,
  };
  showEveryKind();
  const best = new Map<string, number>();
  for (let round = 0; round < 6; round++) {
    for (const [name, fn] of Object.entries(cases)) {
      const start = process.cpuUsage();
      const wall = performance.now();
      let passes = 0;
      while (performance.now() - wall < 250 || passes < 2) {
        fn();
        passes++;
      }
      const used = process.cpuUsage(start);
      const ms = (used.user + used.system) / 1000 / passes;
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, ms));
    }
  }
  const ms = (name: string): number => best.get(name) ?? Number.NaN;
  const proseRate = (name: string): number => bytes(prose) / ms(name);
  console.log('\n(h) targets in CPU time (best of 6 interleaved rounds)');
  console.log(`per output, any name:    ${(ms('jsonPerOutput') / ms('anyPerOutput')).toFixed(2)}x JSON.parse of the same calls (target >= 0.5x)`);
  // The rate itself: before batch and streamed calls had separate allocation sites, a process read about 600,000 or 350,000 (see bench/RESULTS.md).
  console.log(`  batch per output:        ${Math.round(outputs.length / (ms('anyPerOutput') / 1000)).toLocaleString('en-US')} outputs per CPU second`);
  console.log(`per output, allow-list:  ${(ms('jsonPerOutput') / ms('allowPerOutput')).toFixed(2)}x JSON.parse; allow-list costs ${((ms('allowPerOutput') / ms('anyEntriesPerOutput') - 1) * 100).toFixed(0)}% over any name in the same loop over the entries (target <= 10%; ${((ms('allowPerOutput') / ms('anyPerOutput') - 1) * 100).toFixed(0)}% over the any-name loop over plain texts)`);
  console.log(`  diagnostic: with each list read just before the call, ${((ms('allowListReadPerOutput') / ms('anyEntriesListReadPerOutput') - 1) * 100).toFixed(0)}% over any name with the same reads (the caller's list in the cache; a diagnostic, no target)${listRead > 0 ? '' : ' (no list read)'}`);
  console.log(`  with a new list per call: ${((ms('allowNewListPerOutput') / ms('anyEntriesPerOutput') - 1) * 100).toFixed(0)}% over any name in the same loop (no target; a server decoding each request's tools)`);
  console.log(`1-byte streaming:        ${(ms('corpus1Byte') / ms('corpusBatch')).toFixed(2)}x the time of batch (target <= 2.5x)`);
  console.log(`  of which the event API:  ${(ms('corpus1ByteFloor') / ms('corpusBatch')).toFixed(2)}x (a push that scans nothing, keeps the byte and returns one event; batch + this is the least 1-byte streaming can cost)`);
  console.log(`    read as every kind:     ${(ms('corpus1ByteFloorEveryKind') / ms('corpusBatch')).toFixed(2)}x (the same, its consumer having seen the five event shapes the corpus yields: the type read of any consumer of them, countCalls or a switch, is megamorphic)`);
  console.log(`1-byte streaming, sink:  ${(ms('corpus1ByteSink') / ms('corpusBatch')).toFixed(2)}x the time of batch (push(chunk, sink): the same events as method calls, no event object per push)`);
  console.log(`  of which the loop:       ${(ms('corpus1ByteSinkFloor') / ms('corpusBatch')).toFixed(2)}x (a push that scans nothing and calls no sink method)`);
  console.log(
    `1-byte streaming, a parser per output: sink form ${(ms('outputs1ByteSink') / ms('anyPerOutput')).toFixed(2)}x, event API ${(ms('outputs1Byte') / ms('anyPerOutput')).toFixed(2)}x the time of batch per output (no target; real use: a new parser per model response, ${(((ms('outputs1ByteSink') - ms('anyPerOutput')) / outputs.length) * 1000).toFixed(1)} µs per output over batch through the sink)`,
  );
  console.log(
    `  with each output's allow-list: sink form ${(ms('outputs1ByteSinkAllow') / ms('allowPerOutput')).toFixed(2)}x batch per output with the same lists (no target; withTextToolCalling always passes the request's tools)`,
  );
  console.log(`native formats on prose: cost ${((ms('proseAll') / ms('proseCallJson') - 1) * 100).toFixed(1)}% of throughput (target <= 5%); prose ${(proseRate('proseAll') / (bytes(proseJson) / ms('proseJson'))).toFixed(2)}x JSON.parse MB/s (target >= 1x)`);
}
