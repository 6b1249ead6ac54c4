import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { TextToolsDecoder } from './text-tools-decoder.ts';

/** The visible text and the calls (`name` + arguments as JSON) of one answer, pushed in the given pieces. */
function decode(pieces: readonly string[], tools?: readonly string[]): { text: string; calls: string[] } {
  const decoder = new TextToolsDecoder(tools === undefined ? {} : { tools }, false);
  const events: ChatStreamEvent[] = [];
  for (const piece of pieces) events.push(...decoder.push(piece));
  events.push(...decoder.end());
  let text = '';
  const calls: string[] = [];
  for (const event of events) {
    if (event.type === 'text-delta') text += event.delta;
    else if (event.type === 'tool-call') calls.push(`${event.toolCall.name}${JSON.stringify(event.toolCall.arguments)}`);
  }
  return { text, calls };
}

/** Answers whose calls came wrapped: the wrapper is neither text nor call. */
const WRAPPED: readonly [string, string, string][] = [
  ['Hermes', 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', 'Sure.'],
  ['Qwen2.5-Coder <tools>', 'Here:\n<tools>{"name":"get_weather","arguments":{"city":"Paris"}}</tools>', 'Here:'],
  ['Nemotron <TOOLCALL>', '<TOOLCALL>[{"name":"get_weather","arguments":{"city":"Paris"}}]</TOOLCALL>', ''],
  ['<tool_calls> list', '<tool_calls>[{"name":"get_weather","arguments":{"city":"Paris"}}]</tool_calls>', ''],
  ['LongCat wrapper', 'Checking <longcat_tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</longcat_tool_call> now.', 'Checking now.'],
  ['json fence', 'Let me check.\n```json\n{"name":"get_weather","arguments":{"city":"Paris"}}\n```', 'Let me check.'],
  ['Cohere Action:', 'I will look it up.\nAction: ```json\n[{"tool_name":"get_weather","parameters":{"city":"Paris"}}]\n```', 'I will look it up.'],
  ['Phi-4-mini functools', 'functools[{"name":"get_weather","arguments":{"city":"Paris"}}]', ''],
  ['OLMo 3 <function_calls>', '<function_calls>\nget_weather(city="Paris")\n</function_calls>', ''],
  ['Intern-S1 plugin tokens', '<|action_start|><|plugin|>\n{"name":"get_weather","parameters":{"city":"Paris"}}<|action_end|>', ''],
  ['Gemma tool_code fence', '```tool_code\nget_weather(city="Paris")\n```\nOne moment.', '\nOne moment.'],
  ['GigaChat 3 function call', 'On it.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Paris"}}', 'On it.'],
  ['K2 Horizon <ifm|tool_calls>', 'Before <ifm|tool_calls><ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</ifm|tool_call></ifm|tool_calls> after.', 'Before after.'],
  // RWKV's `**Tool Call:**` stays (see OPENER_WORDS); its fence goes.
  ['RWKV **Tool Call:**', 'Checking.\n**Tool Call:**\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```', 'Checking.\n**Tool Call:**'],
  ['HyperCLOVA X -> tool/function_call', ' -> tool/function_call\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]', ''],
];

describe('TextToolsDecoder: visible text around wrapped calls', () => {
  for (const [family, answer, shown] of WRAPPED) {
    it(`${family}: shows only the text around the call, whole and a character at a time`, () => {
      const whole = decode([answer]);
      expect(whole.calls).toEqual(['get_weather{"city":"Paris"}']);
      expect(whole.text).toBe(shown);
      expect(decode(Array.from(answer))).toEqual(whole);
    });
  }

  // The review of #16 (M4, M5, L2, L3, L4): answers whose text lost or kept the wrong characters
  // (the review's tools offered).
  const REVIEWED: readonly [string, string, string, string[]][] = [
    ['a link after a call', 'Let me check.\nget_weather(city="Paris")\n[Weather.com](https://weather.com) has a 10-day forecast.', 'Let me check.\n[Weather.com](https://weather.com) has a 10-day forecast.', ['get_weather{"city":"Paris"}']],
    ['a citation after a call', 'search(q="rust")\n[1] The Rust Programming Language', '\n[1] The Rust Programming Language', ['search{"q":"rust"}']],
    ['a bracketed list before a call', 'I found two candidates [Paris, Lyon]\nsearch(q="Paris")', 'I found two candidates [Paris, Lyon]', ['search{"q":"Paris"}']],
    ['a citation before a Hermes call', 'As shown in [1]\n<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>', 'As shown in [1]', ['search{"q":"x"}']],
    ['code after the call in its fence', 'Run this:\n```python\nsearch(q="x")\nprint("done")\n```\nThat prints done.\n\n**Next steps**: read the docs.', 'Run this:\n```python\nprint("done")\n```\nThat prints done.\n\n**Next steps**: read the docs.', ['search{"q":"x"}']],
    ['a comment after a JSON call in its fence', '```json\n{"name": "search", "arguments": {"q": "x"}}\n// the call above searches\n```\nMore text.', '```json\n// the call above searches\n```\nMore text.', ['search{"q":"x"}']],
    ['markers in prose', 'Hermes wraps each call in <tool_call> and </tool_call>; PHP has no </function> tag, and R1 closes reasoning with </think>. gpt-oss ends with <|end|>.', 'Hermes wraps each call in <tool_call> and </tool_call>; PHP has no </function> tag, and R1 closes reasoning with </think>. gpt-oss ends with <|end|>.', []],
    ['a call in an inline code span', 'You can run `search(q="x")` yourself.', 'You can run yourself.', ['search{"q":"x"}']],
    ["Hunyuan A13B's <answer>", '<think>\nThe user wants the weather.\n</think>\n<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>\n</answer>', '', ['get_weather{"city":"Paris"}']],
  ];
  for (const [what, answer, shown, calls] of REVIEWED) {
    it(`${what}: shows the text whole, whole and a character at a time`, () => {
      const tools = ['search', 'get_weather', 'sort'];
      const whole = decode([answer], tools);
      expect(whole).toEqual({ text: shown, calls });
      expect(decode(Array.from(answer), tools)).toEqual(whole);
    });
  }

  it('shows a wrapper around something that is not a call', () => {
    const answer = 'The config:\n```json\n{"port": 8080}\n```\nand <tools>none</tools>.';
    expect(decode([answer])).toEqual({ text: answer, calls: [] });
    expect(decode(Array.from(answer))).toEqual({ text: answer, calls: [] });
  });
});

describe('TextToolsDecoder: events per piece', () => {
  it("emits a call's start and deltas only with the call, in the push that completes it, and drops a repeat with its text", () => {
    const answer = 'Sure: f(a=1) f(a=1) done.';
    const decoder = new TextToolsDecoder({ tools: ['f'] }, false);
    const pushes = Array.from(answer, (piece) => decoder.push(piece));
    const close = answer.indexOf(')');
    // Nothing is emitted while the call's arguments stream in.
    expect(pushes.slice(answer.indexOf('('), close).every((events) => events.length === 0)).toBe(true);
    expect(pushes[close]).toEqual([
      { type: 'tool-call-start', id: 'f_0', name: 'f' },
      // The argument text held while the call streamed in, as one delta.
      { type: 'tool-call-delta', id: 'f_0', argumentsDelta: 'a=1' },
      { type: 'tool-call', toolCall: { id: 'f_0', name: 'f', arguments: { a: 1 } } },
    ]);
    const events = [...pushes.flat(), ...decoder.end()];
    // The repeat is neither a call nor text.
    expect(events.filter((event) => event.type === 'tool-call')).toHaveLength(1);
    expect(events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('')).toBe('Sure: done.');
    expect(decoder.called).toBe(1);
  });

  it('holds a long argument written a character at a time as its text, and emits it as one delta', () => {
    const value = 'x'.repeat(100_000);
    const decoder = new TextToolsDecoder({ tools: ['f'] }, false);
    const events: ChatStreamEvent[] = [];
    for (const piece of `f(a="${value}")`) events.push(...decoder.push(piece));
    events.push(...decoder.end());
    const deltas = events.filter((event) => event.type === 'tool-call-delta');
    expect(deltas).toEqual([{ type: 'tool-call-delta', id: 'f_0', argumentsDelta: `a="${value}"` }]);
    expect(events.at(-1)).toEqual({ type: 'tool-call', toolCall: { id: 'f_0', name: 'f', arguments: { a: value } } });
  });

  it('returns the same events for a whole answer as for its pieces, reasoning included', () => {
    const answer = '<think>maybe f(a=2)</think>Checking f(a=1) now';
    const whole = new TextToolsDecoder({}, false);
    const all = [...whole.push(answer), ...whole.end()];
    const pieces = new TextToolsDecoder({}, false);
    const streamed = [...Array.from(answer, (piece) => pieces.push(piece)).flat(), ...pieces.end()];
    const merged = (events: readonly ChatStreamEvent[]): [string, string, string[]] => [
      events.map((event) => (event.type === 'reasoning-delta' ? event.delta : '')).join(''),
      events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join(''),
      events.flatMap((event) => (event.type === 'tool-call' ? [event.toolCall.name] : [])),
    ];
    expect(merged(all)).toEqual(['maybe f(a=2)', 'Checking now', ['f']]);
    expect(merged(streamed)).toEqual(merged(all));
  });

  it('shows a call given up at maxCallChars as text, with no start of it, and finds the call after it', () => {
    const answers = [
      `Sure. f(a="${'x'.repeat(40)} and g(b=1) later`,
      `Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": "${'y'.repeat(60)}"}}\n</tool_call> then g(b=2)`,
    ];
    for (const answer of answers) {
      for (const size of [1, 5, 1000]) {
        const decoder = new TextToolsDecoder({ maxCallChars: 32 }, false);
        const events: ChatStreamEvent[] = [];
        for (let i = 0; i < answer.length; i += size) events.push(...decoder.push(answer.slice(i, i + size)));
        events.push(...decoder.end());
        const text = events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
        // The given-up call's characters are shown (up to the later call, which is not).
        expect(text).toContain(answer.slice(6, 6 + 40));
        expect(events.filter((event) => event.type === 'tool-call-start').map((event) => event.type === 'tool-call-start' && event.name)).toEqual(['g']);
        expect(events.filter((event) => event.type === 'tool-call').map((event) => event.type === 'tool-call' && event.toolCall.name)).toEqual(['g']);
      }
    }
  });
});
