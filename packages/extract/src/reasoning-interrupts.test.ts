import { describe, expect, it } from 'vitest';
import type { ExtractOptions } from './extract-options.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { streamInPieces } from '../test/helpers/stream-in-pieces.ts';

// Reasoning that a special token pauses or ends (Kimi's call tokens inside `<think>`, harmony's
// headers inside an analysis message), from the review of the token formats (D1, D2, D5–D7).

const T = '<|tool_call_begin|>';
const A = '<|tool_call_argument_begin|>';
const E = '<|tool_call_end|>';

const stream = streamInPieces;

/** Merges adjacent events of one type that carry text (chunking splits them differently). */
function merged(events: ToolCallParserEvent[]): { type: string; text: string }[] {
  const out: { type: string; text: string }[] = [];
  for (const event of events) {
    if (event.type === 'tool-call-delta' || event.type === 'tool-call-start') continue;
    const type = event.type === 'tool-call' ? `call ${event.toolCall.name}` : event.type;
    const text = 'text' in event ? event.text : '';
    const last = out[out.length - 1];
    if (last !== undefined && last.type === type && (type === 'text' || type === 'reasoning')) last.text += text;
    else out.push({ type, text });
  }
  return out;
}

/**
 * The calls (name and arguments) and the merged events of `text`: batch and every chunking
 * give the same calls and events, and the events' texts give back the text.
 */
function read(text: string, options?: ExtractOptions): { calls: [string, unknown][]; events: { type: string; text: string }[] } {
  const batch = extractToolCalls(text, options);
  const whole = merged(stream(text, text.length || 1, options));
  for (const size of [1, 2, 3, 5, 7, 13, text.length || 1]) {
    const events = stream(text, size, options);
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
    expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
    expect(merged(events)).toEqual(whole);
  }
  return { calls: batch.map((c) => [c.name, c.arguments]), events: whole };
}

describe('a Kimi call token inside <think> that opens no call (review D1)', () => {
  it('is reasoning, and the reasoning goes on to </think>', () => {
    const { calls, events } = read(`<think>x${T}no args g(y=1) </think>out`);
    expect(calls).toEqual([]);
    expect(events).toEqual([
      { type: 'reasoning-start', text: '<think>' },
      { type: 'reasoning', text: `x${T}no args g(y=1) ` },
      { type: 'reasoning-end', text: '</think>' },
      { type: 'text', text: 'out' },
    ]);
  });

  it('is reasoning when the allow-list rejects the name', () => {
    const { calls, events } = read(`<think>x${T}functions.bad:0${A}{} then g(y=1) </think>out g(y=2)`, { tools: ['g'] });
    expect(calls).toEqual([['g', { y: 2 }]]);
    expect(events.slice(0, 3)).toEqual([
      { type: 'reasoning-start', text: '<think>' },
      { type: 'reasoning', text: `x${T}functions.bad:0${A}{} then g(y=1) ` },
      { type: 'reasoning-end', text: '</think>' },
    ]);
  });

  it('does not end the reasoning when Kimi K2 is not among the formats (its call or its section)', () => {
    for (const opener of [T, '<|tool_calls_section_begin|>']) {
      const { calls, events } = read(`<think>x${opener}functions.a:0${A}{"x":1} g(y=1) </think>out`, { formats: ['call'] });
      expect(calls).toEqual([]);
      expect(events[1]).toEqual({ type: 'reasoning', text: `x${opener}functions.a:0${A}{"x":1} g(y=1) ` });
    }
  });

  it('is reasoning when it opens a section that holds no call', () => {
    const section = `<|tool_calls_section_begin|>${T}functions.bad:0${A}{oops}${E}<|tool_calls_section_end|>`;
    const { calls, events } = read(`<think>x${section} y</think>out`);
    expect(calls).toEqual([]);
    expect(events).toEqual([
      { type: 'reasoning-start', text: '<think>' },
      { type: 'reasoning', text: `x${section} y` },
      { type: 'reasoning-end', text: '</think>' },
      { type: 'text', text: 'out' },
    ]);
  });

  it('still pauses the reasoning for a call that opens, and takes it up after the call', () => {
    const { calls, events } = read(`<think>x${T}functions.f:0${A}{"a":1}${E} more </think>out`);
    expect(calls).toEqual([['f', { a: 1 }]]);
    expect(events[0]).toEqual({ type: 'reasoning-start', text: '<think>' });
    expect(events[events.length - 2]).toEqual({ type: 'reasoning-end', text: '</think>' });
    expect(events[events.length - 1]).toEqual({ type: 'text', text: 'out' });
  });
});

describe('a Kimi call without its section whose arguments never close (review D2)', () => {
  it('ends at </think> inside reasoning: its text is reasoning, and what follows is read', () => {
    const { calls, events } = read(`<think>a${T}functions.a:0${A}{"x":1 oops g(y=1)</think>c h(z=2)`);
    expect(calls).toEqual([['h', { z: 2 }]]);
    expect(events.slice(0, 3)).toEqual([
      { type: 'reasoning-start', text: '<think>' },
      { type: 'reasoning', text: `a${T}functions.a:0${A}{"x":1 oops g(y=1)` },
      { type: 'reasoning-end', text: '</think>' },
    ]);
    expect(events.some((e) => e.type === 'incomplete')).toBe(false);
  });

  it('ends at the next token, and the next call is read', () => {
    expect(read(`${T}functions.a:0${A}{"x":${E}${T}functions.b:1${A}{"y":2}${E}`).calls).toEqual([['b', { y: 2 }]]);
    expect(read(`${T}functions.a:0${A}{"x": [1, 2${T}functions.b:1${A}{"y":2}`).calls).toEqual([['b', { y: 2 }]]);
  });

  it('still reads a `<` inside its strings, and stays open (incomplete) when cut short', () => {
    expect(read(`${T}functions.a:0${A}{"html": "<b>${E}</b>"}${E} after`).calls).toEqual([['a', { html: `<b>${E}</b>` }]]);
    const events = stream(`${T}functions.a:0${A}{"x": "cut`, 3);
    expect(events.filter((e) => e.type === 'incomplete')).toHaveLength(1);
    expect(extractToolCalls(`${T}functions.a:0${A}{"x": "cut`)).toEqual([]);
  });
});

describe('harmony analysis messages (review D5–D7)', () => {
  it('reads an analysis message after a leading recipient as reasoning when it is no JSON (D5)', () => {
    const { calls, events } = read(' to=functions.x<|channel|>analysis<|message|>I think f(x=1)<|end|>');
    expect(calls).toEqual([]);
    expect(events).toEqual([
      { type: 'text', text: ' to=functions.x' },
      { type: 'reasoning-start', text: '<|channel|>analysis<|message|>' },
      { type: 'reasoning', text: 'I think f(x=1)' },
      { type: 'reasoning-end', text: '<|end|>' },
    ]);
    // Its JSON arguments are still the call.
    expect(read(' to=functions.x<|channel|>analysis<|message|>{"a":1}<|call|>').calls).toEqual([['x', { a: 1 }]]);
  });

  it('ends an unterminated analysis message at the next header with callsInReasoning too (D6)', () => {
    const text = '<|channel|>analysis<|message|>Think g(y=1)<|start|>assistant<|channel|>final<|message|>The answer';
    const { calls, events } = read(text, { callsInReasoning: true });
    expect(calls).toEqual([['g', { y: 1 }]]);
    expect(events[events.length - 1]).toEqual({ type: 'text', text: '<|start|>assistant<|channel|>final<|message|>The answer' });
    expect(events.filter((e) => e.type === 'reasoning-end')).toEqual([{ type: 'reasoning-end', text: '' }]);
  });

  it('closes an analysis message cut short by a header with a reasoning-end (D7)', () => {
    const { events } = read('<|channel|>analysis<|message|>Think<|start|>assistant<|channel|>final<|message|>The answer');
    expect(events).toEqual([
      { type: 'reasoning-start', text: '<|channel|>analysis<|message|>' },
      { type: 'reasoning', text: 'Think' },
      { type: 'reasoning-end', text: '' },
      { type: 'text', text: '<|start|>assistant<|channel|>final<|message|>The answer' },
    ]);
  });
});

describe("FunctionGemma's <start_function_call> and Gemma 4's <|tool_call> in prose (review)", () => {
  it('is text unless call: follows it, so a call after it is read', () => {
    expect(read('It emits <start_function_call> first. Then f(x=1)').calls).toEqual([['f', { x: 1 }]]);
    expect(read('It emits <start_function_call>\n\nThen f(x=1)').calls).toEqual([['f', { x: 1 }]]);
    expect(read('<start_function_call> call:g{a:1}<end_function_call>').calls).toEqual([['g', { a: 1 }]]);
    expect(read('<start_function_call>:call:g{a:2}<end_function_call>').calls).toEqual([['g', { a: 2 }]]);
    expect(read('Gemma writes <|tool_call> before a call. f(x=1)').calls).toEqual([['f', { x: 1 }]]);
    expect(read('<|tool_call>\ncall:g{a:1}<tool_call|>').calls).toEqual([['g', { a: 1 }]]);
  });

  it('still holds a call that is cut short (incomplete, never guessed)', () => {
    const text = '<start_function_call>call:g{a:<escape>cut';
    expect(extractToolCalls(text)).toEqual([]);
    expect(stream(text, 2).filter((e) => e.type === 'incomplete')).toHaveLength(1);
  });
});

describe("a Kimi call without its section: its <|tool_call_end|> is part of the call's span (review D7)", () => {
  it('takes the end token (space before it) into the call', () => {
    const stream1 = stream(`a ${T}functions.f:0${A}{"x":1} \n${E} b`, 1);
    const call = stream1.find((e) => e.type === 'tool-call');
    expect(call !== undefined && 'text' in call ? call.text : '').toBe(`${T}functions.f:0${A}{"x":1} \n${E}`);
    expect(read(`a ${T}functions.f:0${A}{"x":1} \n${E} b`).events.map((e) => e.type)).toEqual(['text', 'call f', 'text']);
  });

  it('ends the call at its object when something else follows (the next call, text, the end)', () => {
    expect(read(`${T}functions.f:0${A}{"x":1}${T}functions.g:1${A}{"y":2}${E}`).calls).toEqual([
      ['f', { x: 1 }],
      ['g', { y: 2 }],
    ]);
    expect(read(`${T}functions.f:0${A}{"x":1} <|tool_call_en then text`).events).toEqual([
      { type: 'call f', text: `${T}functions.f:0${A}{"x":1}` },
      { type: 'text', text: ' <|tool_call_en then text' },
    ]);
    expect(read(`${T}functions.f:0${A}{"x":1}  `).events).toEqual([
      { type: 'call f', text: `${T}functions.f:0${A}{"x":1}` },
      { type: 'text', text: '  ' },
    ]);
    expect(read(`${T}functions.f:0${A}{"x":1}`).calls).toEqual([['f', { x: 1 }]]);
  });

  it('inside <think>, the reasoning goes on after the call and its end token', () => {
    const { calls, events } = read(`<think>a${T}functions.f:0${A}{"x":1}${E}b</think>c`);
    expect(calls).toEqual([['f', { x: 1 }]]);
    expect(events).toEqual([
      { type: 'reasoning-start', text: '<think>' },
      { type: 'reasoning', text: 'a' },
      { type: 'call f', text: `${T}functions.f:0${A}{"x":1}${E}` },
      { type: 'reasoning', text: 'b' },
      { type: 'reasoning-end', text: '</think>' },
      { type: 'text', text: 'c' },
    ]);
  });
});
