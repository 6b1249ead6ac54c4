import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ExtractableTool, ExtractOptions, ToolCallFormat } from '../src/extract-options.ts';
import { extractToolCalls } from '../src/extract-tool-calls.ts';
import { TextToolsDecoder } from '../src/text-tools-decoder.ts';
import { createToolCallParser } from '../src/tool-call-parser.ts';
import type { ToolCallParserEvent } from '../src/tool-call-parser-event.ts';
import { collectingSink } from './helpers/collecting-sink.ts';

/**
 * The classic formats (call syntax, JSON, Mistral, Functionary, Apertus) held to the test cases
 * of vLLM's tool parsers and llama.cpp's chat parsers, taken as data into
 * `peer/classic.cases.json` (sources, mapping and deliberate differences: `peer/SOURCE-classic.md`).
 */

interface ExpectedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Only where the model wrote an id (Cohere `tool_call_id`, Mistral `[CALL_ID]` or its list's `id`). */
  id?: string;
}

interface PeerCase {
  id: string;
  /** Where the case comes from: a commit (8 hex), or where the index held a version without its commit, the index's id. */
  source: { repo: string; path: string; commit?: string; snapshot?: string; test: string };
  /** The format to force (`format`) besides auto-detection. */
  format: ToolCallFormat;
  text: string;
  /** Toolwire's expected calls (the peer's, unless `difference` says otherwise). */
  calls: ExpectedCall[];
  /**
   * The answer text a user sees (trimmed), where the peer case checks it: the parser's text
   * events hold every character (wrappers too), so this is what `withTextToolCalling` shows
   * once it has taken the calls and their framing out.
   */
  content?: string;
  /** Reasoning text (trimmed), where the peer case checks it. */
  reasoning?: string;
  /** The tools the peer case gives: run with them only. */
  tools?: ExtractableTool[];
  /** Allow-list for a case that gives no tools (default: the expected names). */
  names?: string[];
  /** Options the case needs besides tools and format (e.g. `startInReasoning` where the prompt opened `<think>`). */
  options?: Pick<ExtractOptions, 'startInReasoning' | 'callsInReasoning'>;
  /** Where Toolwire answers differently on purpose: what the peer expects and why we differ. */
  difference?: string;
}

const file = JSON.parse(readFileSync(new URL('./peer/classic.cases.json', import.meta.url), 'utf8')) as { cases: PeerCase[] };
const cases = file.cases;

/** Cases we fail and have not decided yet; shrinks to empty as each is fixed or documented. */
const UNDECIDED = new Set<string>([]);

/** The calls as the case states them: name and arguments, and the id only where the model wrote one. */
function shape(calls: readonly { id: string; name: string; arguments: Record<string, unknown> }[], expected: readonly ExpectedCall[]): ExpectedCall[] {
  return calls.map((call, i) => (expected[i]?.id === undefined ? { name: call.name, arguments: call.arguments } : { name: call.name, arguments: call.arguments, id: call.id }));
}

/** A small seeded generator (mulberry32), so the random cuts are the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function chunkings(text: string): { label: string; chunks: string[] }[] {
  const result = [
    { label: 'whole', chunks: [text] },
    { label: 'one character at a time', chunks: Array.from(text) },
  ];
  for (const seed of [1, 2, 3]) {
    const next = random(seed * 7919 + text.length);
    const chunks: string[] = [];
    let at = 0;
    while (at < text.length) {
      const size = 1 + Math.floor(next() * 12);
      chunks.push(text.slice(at, at + size));
      at += size;
    }
    result.push({ label: `random cuts (seed ${String(seed)})`, chunks });
  }
  return result;
}

function streamEvents(chunks: readonly string[], options: ExtractOptions | undefined, sink: boolean): ToolCallParserEvent[] {
  const parser = createToolCallParser(options);
  if (!sink) {
    const events: ToolCallParserEvent[] = [];
    for (const chunk of chunks) events.push(...parser.push(chunk));
    events.push(...parser.end());
    return events;
  }
  const events: ToolCallParserEvent[] = [];
  const collector = collectingSink(events);
  for (const chunk of chunks) parser.push(chunk, collector);
  parser.end(collector);
  return events;
}

/** The answer and reasoning text `withTextToolCalling` shows for the chunks (its decoder, calls taken out). */
function answer(chunks: readonly string[], options: ExtractOptions | undefined): { content: string; reasoning: string } {
  const decoder = new TextToolsDecoder(options ?? {}, false);
  let content = '';
  let reasoning = '';
  for (const event of [...chunks.flatMap((chunk) => decoder.push(chunk)), ...decoder.end()]) {
    if (event.type === 'text-delta') content += event.delta;
    else if (event.type === 'reasoning-delta') reasoning += event.delta;
  }
  return { content, reasoning };
}

function variants(c: PeerCase): { label: string; options: ExtractOptions | undefined }[] {
  const extra = c.options ?? {};
  if (c.tools !== undefined) {
    return [
      { label: 'auto-detected, with the case tools', options: { ...extra, tools: c.tools } },
      { label: `format '${c.format}', with the case tools`, options: { ...extra, tools: c.tools, format: c.format } },
    ];
  }
  const names = c.names ?? (c.calls.length > 0 ? [...new Set(c.calls.map((call) => call.name))] : ['get_weather']);
  return [
    { label: 'auto-detected', options: c.options === undefined ? undefined : { ...extra } },
    { label: `format '${c.format}'`, options: { ...extra, format: c.format } },
    { label: `allow-list ${names.join(', ')}`, options: { ...extra, tools: names } },
    { label: `allow-list and format '${c.format}'`, options: { ...extra, tools: names, format: c.format } },
  ];
}

function check(c: PeerCase): void {
  for (const { label, options } of variants(c)) {
    expect(shape(extractToolCalls(c.text, options), c.calls), `batch, ${label}`).toEqual(c.calls);
    for (const { label: cut, chunks } of chunkings(c.text)) {
      for (const sink of [false, true]) {
        const where = `streaming ${sink ? 'into a sink' : 'events'}, ${cut}, ${label}`;
        const events = streamEvents(chunks, options, sink);
        const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
        expect(shape(calls, c.calls), where).toEqual(c.calls);
        expect(events.map((e) => ('text' in e ? e.text : '')).join(''), `${where}: every character is reported once`).toBe(c.text);
      }
      if (c.content !== undefined || c.reasoning !== undefined) {
        const shown = answer(chunks, options);
        if (c.content !== undefined) expect(shown.content.trim(), `answer text, ${cut}, ${label}`).toBe(c.content.trim());
        if (c.reasoning !== undefined) expect(shown.reasoning.trim(), `reasoning, ${cut}, ${label}`).toBe(c.reasoning.trim());
      }
    }
  }
}

describe('peer cases: classic formats (vLLM, llama.cpp)', () => {
  it('has cases, each with a source and a decided expectation', () => {
    expect(cases.length).toBeGreaterThan(100);
    for (const c of cases) {
      if (c.source.snapshot === undefined) expect(c.source.commit, c.id).toMatch(/^[0-9a-f]{8}$/);
      expect(Array.isArray(c.calls), `${c.id}: expected calls decided`).toBe(true);
      if (c.difference !== undefined) expect(c.difference.length, `${c.id}: a difference says why`).toBeGreaterThan(40);
    }
    for (const id of UNDECIDED) expect(cases.some((c) => c.id === id), id).toBe(true);
  });

  for (const c of cases) {
    const run = UNDECIDED.has(c.id) ? it.fails : it;
    run(`${c.id} (${c.source.path.split('/').pop() ?? ''}: ${c.source.test})`, () => {
      check(c);
    });
  }
});
