import { readFileSync } from 'node:fs';
import type { ToolCall } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { CallTextCleaner } from '../src/call-text-cleaner.ts';
import type { ExtractableTool, ExtractOptions, ToolCallFormat } from '../src/extract-options.ts';
import { extractToolCalls } from '../src/extract-tool-calls.ts';
import { createToolCallParser } from '../src/tool-call-parser.ts';
import type { ToolCallParserEvent } from '../src/tool-call-parser-event.ts';
import { collectingSink } from './helpers/collecting-sink.ts';

/**
 * The special-token formats (DeepSeek, DeepSeek DSML, Kimi K2, Gemma 4, FunctionGemma, gpt-oss harmony)
 * held to the parser test cases of vLLM and llama.cpp (`peer/tokens.cases.json`; where
 * they come from and where Toolwire answers differently on purpose: `peer/SOURCE-tokens.md`).
 */

interface ExpectedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The id the model wrote (Kimi); compared only where given. */
  id?: string;
}

interface PeerCase {
  id: string;
  source: { repo: string; path: string; commit: string; test: string };
  format: ToolCallFormat;
  text: string;
  /** The tools the peer case gives (their schemas drive value types). */
  tools?: ExtractableTool[];
  /** The prompt ended inside a reasoning block (a template that opens `<think>` itself). */
  startInReasoning?: boolean;
  /** The peer's own chunking of the stream, run besides ours. */
  chunks?: string[];
  calls: ExpectedCall[];
  /** Visible text outside calls, as `withTextToolCalling` shows it, compared without surrounding whitespace. */
  content?: string;
  /** Reasoning text, compared without surrounding whitespace. */
  reasoning?: string;
  /** The text ends inside a call or block: reported as `incomplete`. */
  incomplete?: boolean;
  /** Where Toolwire answers differently on purpose: the key of the reason in SOURCE-tokens.md. */
  difference?: string;
}

const file = JSON.parse(readFileSync(new URL('./peer/tokens.cases.json', import.meta.url), 'utf8')) as { cases: PeerCase[] };
const cases = file.cases;

/** Case ids that fail and are not yet decided (a bug to fix, or a difference to document). Shrinks to empty. */
const UNDECIDED_FAILURES: ReadonlySet<string> = new Set<string>([]);

/** The reasons SOURCE-tokens.md gives for answering differently on purpose. */
const DIFFERENCES = new Set([
  'text-after-calls',
  'truncated-is-incomplete',
  'dsml-both-spellings',
  'invalid-arguments-dropped',
  'kimi-bare-counter',
  'harmony-json-object-only',
  'gemma-empty-value',
  'gemma-bare-call',
  'functiongemma-escaped-text',
  'calls-in-unclosed-reasoning',
]);

function shape(call: ToolCall, withId: boolean): ExpectedCall {
  return withId ? { name: call.name, arguments: call.arguments, id: call.id } : { name: call.name, arguments: call.arguments };
}

function compared(calls: readonly ToolCall[], expected: readonly ExpectedCall[]): ExpectedCall[] {
  return calls.map((call, i) => shape(call, expected[i]?.id !== undefined));
}

/** Deterministic cuts (a small LCG), so a failing chunking can be replayed. */
function randomCuts(text: string, seed: number): string[] {
  let state = seed;
  const chunks: string[] = [];
  let i = 0;
  while (i < text.length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 9);
    chunks.push(text.slice(i, i + size));
    i += size;
  }
  return chunks;
}

function chunkings(c: PeerCase): [string, string[]][] {
  const list: [string, string[]][] = [
    ['whole', [c.text]],
    ['one character at a time', Array.from(c.text)],
    ['random cuts (seed 7)', randomCuts(c.text, 7)],
    ['random cuts (seed 2026)', randomCuts(c.text, 2026)],
  ];
  if (c.chunks !== undefined) list.push(["the peer's chunks", c.chunks]);
  return list;
}

function run(chunks: readonly string[], options: ExtractOptions, sink: boolean): ToolCallParserEvent[] {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  if (sink) {
    const collect = collectingSink(events);
    for (const chunk of chunks) parser.push(chunk, collect);
    parser.end(collect);
  } else {
    for (const chunk of chunks) events.push(...parser.push(chunk));
    events.push(...parser.end());
  }
  return events;
}

/** The visible answer text: text events through the cleaner `withTextToolCalling` uses. */
function visibleText(events: readonly ToolCallParserEvent[]): string {
  const cleaner = new CallTextCleaner();
  let shown = '';
  for (const event of events) {
    if (event.type === 'text') shown += cleaner.text(event.text);
    else if (event.type === 'tool-call') shown += cleaner.call(event.text);
  }
  return (shown + cleaner.end()).trim();
}

function reasoningText(events: readonly ToolCallParserEvent[]): string {
  return events
    .flatMap((e) => (e.type === 'reasoning' ? [e.text] : []))
    .join('')
    .trim();
}

function optionSets(c: PeerCase): [string, ExtractOptions][] {
  const base: ExtractOptions = c.startInReasoning === true ? { startInReasoning: true } : {};
  const sets: [string, ExtractOptions][] = [];
  if (c.tools !== undefined) {
    sets.push(['the case tools', { ...base, tools: c.tools }]);
  } else {
    sets.push(['any name', base]);
    const names = [...new Set(c.calls.map((call) => call.name))];
    if (names.length > 0) sets.push(['an allow-list of the expected names', { ...base, tools: names }]);
  }
  return sets.flatMap(([label, options]): [string, ExtractOptions][] => [
    [`${label}, auto-detected`, options],
    [`${label}, format forced`, { ...options, format: c.format }],
  ]);
}

function check(c: PeerCase): void {
  for (const [label, options] of optionSets(c)) {
    expect(compared(extractToolCalls(c.text, options), c.calls), `batch, ${label}`).toEqual(c.calls);
    for (const [cut, chunks] of chunkings(c)) {
      for (const sink of [false, true]) {
        const where = `${sink ? 'sink' : 'events'}, ${cut}, ${label}`;
        const events = run(chunks, options, sink);
        const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
        expect(compared(calls, c.calls), where).toEqual(c.calls);
        expect(events.map((e) => ('text' in e ? e.text : '')).join(''), `${where}: the events give back the input`).toBe(c.text);
        if (c.incomplete !== undefined) expect(events.some((e) => e.type === 'incomplete'), `${where}: incomplete`).toBe(c.incomplete);
        if (c.content !== undefined) expect(visibleText(events), `${where}: content`).toBe(c.content.trim());
        if (c.reasoning !== undefined) expect(reasoningText(events), `${where}: reasoning`).toBe(c.reasoning.trim());
      }
    }
  }
}

describe('peer cases: special-token formats (vLLM, llama.cpp)', () => {
  it('has cases from every source, each with its source and a known reason for any difference', () => {
    expect(cases.length).toBeGreaterThan(150);
    const ids = new Set<string>();
    for (const c of cases) {
      expect(ids.has(c.id), c.id).toBe(false);
      ids.add(c.id);
      expect(c.source.repo === 'vllm-project/vllm' || c.source.repo === 'ggml-org/llama.cpp', c.id).toBe(true);
      if (c.difference !== undefined) expect(DIFFERENCES.has(c.difference), c.id).toBe(true);
    }
    for (const id of UNDECIDED_FAILURES) expect(ids.has(id), id).toBe(true);
  });

  for (const c of cases) {
    const title = `${c.id} (${c.format})`;
    if (UNDECIDED_FAILURES.has(c.id)) it.fails(`UNDECIDED: ${title}`, () => check(c));
    else it(title, () => check(c));
  }
});
