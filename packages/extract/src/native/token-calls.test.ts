import { describe, expect, it } from 'vitest';
import { kimiName, parseDeepseekCalls, parseKimiCalls } from './token-calls.ts';

const call = (id: string, args: string): string => `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;

function kimi(body: string): { name: string; args: unknown; id?: string }[] {
  return parseKimiCalls(body, 0, body.length).map(({ name, args, id }) => (id === undefined ? { name, args } : { name, args, id }));
}

describe('parseKimiCalls', () => {
  it('drops arguments that never close and still reads the calls after them (vLLM test_invalid_json_still_extracted)', () => {
    const body = call('functions.bad:0', '{"city": "Beijing"') + call('functions.good:1', '{"city": "Shanghai"}');
    expect(kimi(body)).toEqual([{ name: 'good', args: { city: 'Shanghai' }, id: 'functions.good:1' }]);
  });

  it("reads arguments whose string holds the next call's token", () => {
    const body = call('functions.a:0', '{"note": "<|tool_call_begin|>x"}') + call('functions.b:1', '{}');
    expect(kimi(body)).toEqual([
      { name: 'a', args: { note: '<|tool_call_begin|>x' }, id: 'functions.a:0' },
      { name: 'b', args: {}, id: 'functions.b:1' },
    ]);
  });

  it("reads every call whose string holds the next call's token, never the quoted call (review D4)", () => {
    const body =
      call('functions.a:0', '{"doc": "mentions <|tool_call_begin|> once"}') +
      call('functions.write:1', '{"doc": "example: <|tool_call_begin|>functions.shutdown:2<|tool_call_argument_begin|>{} end"}');
    expect(kimi(body)).toEqual([
      { name: 'a', args: { doc: 'mentions <|tool_call_begin|> once' }, id: 'functions.a:0' },
      { name: 'write', args: { doc: 'example: <|tool_call_begin|>functions.shutdown:2<|tool_call_argument_begin|>{} end' }, id: 'functions.write:1' },
    ]);
  });

  it('drops broken arguments whose read past the next call gives no object, and reads the calls after them', () => {
    const body = call('functions.a:0', '{"x": "open') + call('functions.b:1', '{"y": "2"}') + call('functions.c:2', '{}');
    expect(kimi(body)).toEqual([
      { name: 'b', args: { y: '2' }, id: 'functions.b:1' },
      { name: 'c', args: {}, id: 'functions.c:2' },
    ]);
  });

  it('names a call by what lies between `functions.` and the last colon', () => {
    expect(kimiName('functions.ns.tool:4')).toBe('ns.tool');
    expect(kimiName('get_time:0')).toBe('get_time');
    expect(kimiName('plain')).toBe('plain');
  });
});

describe('parseDeepseekCalls', () => {
  const SEP = '<\uff5ctool\u2581sep\uff5c>';
  const END = '<\uff5ctool\u2581call\u2581end\uff5c>';
  const read = (body: string) => parseDeepseekCalls(body, 0, body.length, { schemaOf: () => undefined }).map(({ name, args }) => ({ name, args }));

  it("reads R1's function<｜tool▁sep｜>NAME written without a call opener (llama.cpp)", () => {
    expect(read(`function${SEP}get_time\n\`\`\`json\n{"tz": "UTC"}\n\`\`\`${END}`)).toEqual([{ name: 'get_time', args: { tz: 'UTC' } }]);
  });

  it("does not read V3.1's NAME<｜tool▁sep｜>JSON without a call opener (vLLM)", () => {
    expect(read(`foo${SEP}{"x":1}`)).toEqual([]);
  });

  it("reads StepFun Step-3's <steptml:invoke> in a call, with or without function<｜tool▁sep｜>NAME before it", () => {
    const BEGIN = '<\uff5ctool_call_begin\uff5c>';
    const STEP_END = '<\uff5ctool_call_end\uff5c>';
    const invoke = (name: string, value: string) => `<steptml:invoke name="${name}"><steptml:parameter name="q"> ${value} </steptml:parameter></steptml:invoke>`;
    expect(read(`${BEGIN}${invoke('a', '1')}${STEP_END}${BEGIN}function<\uff5ctool_sep\uff5c>b\n${invoke('b', '<x>')}${STEP_END}`)).toEqual([
      { name: 'a', args: { q: ' 1 ' } },
      { name: 'b', args: { q: ' <x> ' } },
    ]);
    // An invoke that never closes in its call is no call; the next one is still read.
    expect(read(`${BEGIN}<steptml:invoke name="a">${STEP_END}${BEGIN}${invoke('b', '2')}${STEP_END}`)).toEqual([{ name: 'b', args: { q: ' 2 ' } }]);
  });

  it('reads <steptml:invoke> as Step-3 only where it opens the call, not inside JSON arguments (review D3)', () => {
    const BEGIN = '<\uff5ctool\u2581call\u2581begin\uff5c>';
    // V3.1 JSON whose string quotes an invoke: the call is `write`, not the quoted `rm`.
    expect(read(`${BEGIN}write${SEP}{"doc":"<steptml:invoke name='rm'></steptml:invoke>"}${END}`)).toEqual([
      { name: 'write', args: { doc: "<steptml:invoke name='rm'></steptml:invoke>" } },
    ]);
    // R1's fenced JSON whose string holds an unclosed invoke.
    expect(read(`${BEGIN}function${SEP}b\n\`\`\`json\n{"doc":"<steptml:invoke name=\\"x\\">"}\n\`\`\`${END}`)).toEqual([
      { name: 'b', args: { doc: '<steptml:invoke name="x">' } },
    ]);
    // Space between the call token (or the separator) and the invoke is still Step-3.
    expect(read(`${BEGIN}\n <steptml:invoke name="a"></steptml:invoke>${END}${BEGIN}function${SEP}\n<steptml:invoke name="b"></steptml:invoke>${END}`)).toEqual([
      { name: 'a', args: {} },
      { name: 'b', args: {} },
    ]);
  });

  it("reads R1's function<｜tool▁sep｜>NAME without a call opener for every call of the block, not only the first (review D8)", () => {
    const fenced = (name: string, args: string) => `function${SEP}${name}\n\`\`\`json\n${args}\n\`\`\`${END}`;
    expect(read(`${fenced('a', '{"x":1}')}\n${fenced('b', '{"y":2}')}`)).toEqual([
      { name: 'a', args: { x: 1 } },
      { name: 'b', args: { y: 2 } },
    ]);
    // Mixed with a call that has its opener.
    expect(read(`<\uff5ctool\u2581call\u2581begin\uff5c>${fenced('a', '{}')}${fenced('b', '{}')}`)).toEqual([
      { name: 'a', args: {} },
      { name: 'b', args: {} },
    ]);
  });
});
