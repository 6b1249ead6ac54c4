import { readFileSync } from 'node:fs';
import type { JsonSchema, ToolCall } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import type { ExtractableTool, ExtractOptions, ToolCallFormat } from '../src/extract-options.ts';
import { extractToolCalls } from '../src/extract-tool-calls.ts';
import { createToolCallParser } from '../src/tool-call-parser.ts';
import type { ToolCallParserEvent } from '../src/tool-call-parser-event.ts';
import { collectingSink } from './helpers/collecting-sink.ts';

/** One peer test case (see peer/SOURCE-xml.md for where each comes from and how it maps). */
interface PeerCase {
  id: string;
  format: ToolCallFormat;
  source: { repo: string; path: string; commit: string; test: string };
  text: string;
  /** The tools the peer case gives (with schemas); absent: the case gives none. */
  tools?: { name: string; inputSchema: JsonSchema }[];
  calls: { name: string; arguments: Record<string, unknown>; id?: string }[];
  /** Text outside calls and reasoning, compared without surrounding whitespace. */
  content?: string;
  /** Reasoning text, compared without surrounding whitespace. */
  reasoning?: string;
  /** Pieces the text outside calls must contain. */
  contains?: string[];
  options?: Pick<ExtractOptions, 'startInReasoning' | 'callsInReasoning'>;
  /** Where the peer expects something else on purpose: what and why (the case asserts ours). */
  differs?: string;
  note?: string;
}

const { cases } = JSON.parse(readFileSync(new URL('./peer/xml.cases.json', import.meta.url), 'utf8')) as { cases: PeerCase[] };

/**
 * Cases that fail and are not decided yet (a bug to fix, or a difference to document). Each is
 * asserted to fail, so fixing one breaks the test until it leaves this list.
 */
const NOT_YET_DECIDED = new Set<string>([]);

/**
 * Cases Toolwire answers wrong today, known and not fixed (peer/SOURCE-xml.md says why and what
 * a fix needs). The case keeps the peer's expectation and is asserted to fail until it is fixed.
 */
const KNOWN_LIMITATIONS = new Set<string>([]);

/** A fixed-seed generator, so random chunkings are the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function chunkings(text: string, seed: number): [string, string[]][] {
  const next = random(seed);
  const cuts: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(next() * 12);
    cuts.push(text.slice(i, i + n));
    i += n;
  }
  // Code points, as a token stream delivers them.
  const characters: string[] = [];
  for (const character of text) characters.push(character);
  return [
    ['whole', [text]],
    ['one character at a time', characters],
    ['random cuts', cuts],
  ];
}

interface Outcome {
  calls: ToolCall[];
  text: string;
  reasoning: string;
}

function fromEvents(events: readonly ToolCallParserEvent[]): Outcome {
  const calls: ToolCall[] = [];
  let text = '';
  let reasoning = '';
  for (const event of events) {
    if (event.type === 'tool-call') calls.push(event.toolCall);
    else if (event.type === 'text') text += event.text;
    else if (event.type === 'reasoning') reasoning += event.text;
  }
  return { calls, text, reasoning };
}

function stream(chunks: readonly string[], options: ExtractOptions, sink: boolean): Outcome {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  const collect = collectingSink(events);
  for (const chunk of chunks) {
    if (sink) parser.push(chunk, collect);
    else events.push(...parser.push(chunk));
  }
  if (sink) parser.end(collect);
  else events.push(...parser.end());
  return fromEvents(events);
}

/** The case's tools, plus (as bare names) the names it calls that its list lacks: the peers do not filter by name. */
function allowList(peer: PeerCase): (string | ExtractableTool)[] {
  const tools: (string | ExtractableTool)[] = [...(peer.tools ?? [])];
  for (const c of peer.calls) if (!tools.some((t) => (typeof t === 'string' ? t : t.name) === c.name)) tools.push(c.name);
  return tools;
}

function variants(peer: PeerCase): [string, ExtractOptions][] {
  const base: ExtractOptions = { ...peer.options };
  if (peer.tools !== undefined) return [['with its tools', { ...base, tools: allowList(peer) }]];
  return [
    ['without an allow-list', base],
    ['with the expected names as allow-list', { ...base, tools: allowList(peer) }],
  ];
}

function check(peer: PeerCase, outcome: Outcome, streamed: boolean): void {
  expect(outcome.calls.map((c) => (peer.calls.some((e) => e.id !== undefined) ? c : { name: c.name, arguments: c.arguments }))).toEqual(
    peer.calls.map((c) => (c.id === undefined ? { name: c.name, arguments: c.arguments } : { id: c.id, name: c.name, arguments: c.arguments })),
  );
  if (!streamed) return;
  if (peer.content !== undefined) expect(outcome.text.trim()).toBe(peer.content.trim());
  if (peer.reasoning !== undefined) expect(outcome.reasoning.trim()).toBe(peer.reasoning.trim());
  for (const piece of peer.contains ?? []) expect(outcome.text).toContain(piece);
}

function runCase(peer: PeerCase): void {
  for (const [label, options] of variants(peer)) {
    const forced: ExtractOptions = { ...options, format: peer.format };
    check(peer, { calls: extractToolCalls(peer.text, options), text: '', reasoning: '' }, false);
    check(peer, { calls: extractToolCalls(peer.text, forced), text: '', reasoning: '' }, false);
    for (const [how, chunks] of chunkings(peer.text, peer.id.length * 7919)) {
      for (const sink of [false, true]) {
        for (const opts of [options, forced]) {
          try {
            check(peer, stream(chunks, opts, sink), true);
          } catch (error) {
            throw new Error(`${label}, streamed ${how}${sink ? ' into a sink' : ''}${opts.format === undefined ? '' : ', format forced'}: ${(error as Error).message}`, { cause: error });
          }
        }
      }
    }
  }
}

/** The formats of the cases (Step-3's StepTML is read inside the `deepseek` format's tokens). */
const FORMATS = ['qwen3-xml', 'seed-oss', 'minimax-m2', 'glm', 'deepseek'] as const;

describe('peer cases: XML-style formats (vLLM, llama.cpp)', () => {
  it('runs every case once', () => {
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    for (const peer of cases) expect(FORMATS).toContain(peer.format);
    for (const id of [...NOT_YET_DECIDED, ...KNOWN_LIMITATIONS]) expect(cases.some((c) => c.id === id)).toBe(true);
  });
  for (const format of FORMATS) {
    describe(format, () => {
      for (const peer of cases.filter((c) => c.format === format)) {
        const title = `${peer.id} (${peer.source.path.split('/').pop() ?? ''}: ${peer.source.test})`;
        if (NOT_YET_DECIDED.has(peer.id)) it.fails(`not yet decided: ${title}`, () => runCase(peer));
        else if (KNOWN_LIMITATIONS.has(peer.id)) it.fails(`known limitation: ${title}`, () => runCase(peer));
        else it(title, () => runCase(peer));
      }
    });
  }
});
