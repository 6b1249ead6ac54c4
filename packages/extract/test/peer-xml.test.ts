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

/** FNV-1a of a case's id: its seed for random cuts (ids of one length cut differently). */
function seedOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** Where the first closing tag of a call ends (`</function>`, `</invoke>`, …), or -1. */
function firstCallEnd(text: string): number {
  let end = -1;
  for (const tag of ['</function>', '</invoke>', '</tool_call>', '</steptml:invoke>']) {
    const at = text.indexOf(tag);
    if (at >= 0 && (end < 0 || at + tag.length < end)) end = at + tag.length;
  }
  return end;
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
  const result: [string, string[]][] = [
    ['whole', [text]],
    ['one character at a time', characters],
    ['random cuts', cuts],
  ];
  // A call's closing tag inside a longer chunk, then a token stream (what follows must still let it out).
  const end = firstCallEnd(text);
  if (end > 0 && end < text.length) result.push(['through the first call whole, then a character at a time', [text.slice(0, end), ...Array.from(text.slice(end))]]);
  return result;
}

interface Outcome {
  calls: ToolCall[];
  text: string;
  reasoning: string;
}

/** A streamed outcome, with every event and how many came before `end()`. */
interface Streamed extends Outcome {
  events: ToolCallParserEvent[];
  beforeEnd: number;
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

function stream(chunks: readonly string[], options: ExtractOptions, sink: boolean): Streamed {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  const collect = collectingSink(events);
  for (const chunk of chunks) {
    if (sink) parser.push(chunk, collect);
    else events.push(...parser.push(chunk));
  }
  const beforeEnd = events.length;
  if (sink) parser.end(collect);
  else events.push(...parser.end());
  return { ...fromEvents(events), events, beforeEnd };
}

/**
 * The events give back the input exactly, and a call comes out as soon as the text after it
 * is something else: one that waits for `end()` is followed by nothing but space (or the
 * start of a closing tag the model may still write).
 */
function checkEvents(peer: PeerCase, streamed: Streamed): void {
  const pieces = streamed.events.map((e) => ('text' in e ? e.text : ''));
  expect(pieces.join('')).toBe(peer.text);
  let offset = 0;
  streamed.events.forEach((event, k) => {
    offset += pieces[k]?.length ?? 0;
    if (event.type !== 'tool-call' || k < streamed.beforeEnd) return;
    const after = peer.text.slice(offset).trim();
    expect(after === '' || '</tool_call>'.startsWith(after), `${event.toolCall.name} came out only at end(), before ${JSON.stringify(after)}`).toBe(true);
  });
}

/** A text cut anywhere gives no call that the whole text does not give (truncated output is never guessed). */
function checkPrefixes(peer: PeerCase, options: ExtractOptions): void {
  const whole = extractToolCalls(peer.text, options).map((c) => ({ name: c.name, arguments: c.arguments }));
  for (let cut = 0; cut < peer.text.length; cut++) {
    const calls = extractToolCalls(peer.text.slice(0, cut), options);
    calls.forEach((c, k) => {
      expect({ name: c.name, arguments: c.arguments }, `cut at ${String(cut)}`).toEqual(whole[k]);
    });
  }
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
    checkPrefixes(peer, options);
    for (const [how, chunks] of chunkings(peer.text, seedOf(peer.id))) {
      for (const sink of [false, true]) {
        for (const opts of [options, forced]) {
          try {
            const streamed = stream(chunks, opts, sink);
            check(peer, streamed, true);
            checkEvents(peer, streamed);
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

/**
 * The Qwen3-XML cases with their `<tool_call>` wrappers taken away (models also write bare
 * `<function=…>` calls) and text after them: each call must come out before `end()`, once the
 * text after its `</function>` shows that no `</tool_call>` follows.
 */
describe('peer cases as bare Qwen3-XML calls followed by text', () => {
  // Values holding `</function>` or a quoted call: bare, a call ends at its first `</function>` (README).
  const cutShort = new Set(['vllm-shared-content-with-structural-tags', 'vllm-shared-full-nested-tool-call', 'vllm-shared-out-of-schema-nested-literal']);
  const bare = cases.filter((c) => c.format === 'qwen3-xml' && c.calls.length > 0 && c.text.includes('<tool_call>\n<function=') && !cutShort.has(c.id));
  const unwrap = (text: string): string => `${text.split('<tool_call>\n').join('').split('\n</tool_call>').join('')}\nDone.`;

  it('has cases to run', () => {
    expect(bare.length).toBeGreaterThan(50);
    for (const id of cutShort) expect(cases.some((c) => c.id === id)).toBe(true);
  });
  for (const peer of bare) {
    it(peer.id, () => {
      const text = unwrap(peer.text);
      const options: ExtractOptions = peer.tools === undefined ? {} : { tools: allowList(peer) };
      const expected = extractToolCalls(text, options);
      expect(expected.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(peer.calls.map((c) => ({ name: c.name, arguments: c.arguments })));
      for (const [how, chunks] of chunkings(text, seedOf(peer.id))) {
        const streamed = stream(chunks, options, false);
        expect(streamed.calls, how).toEqual(expected);
        checkEvents({ ...peer, text }, streamed);
      }
    });
  }
});
