import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_FORMATS } from '../extract-options.ts';
import type { ToolCallFormat } from '../extract-options.ts';
import { renderToolCall } from '../render-tool-call.ts';
import type { TextToolFormat } from '../text-tool-format.ts';
import { keepsWaiting, loneDecisions, loneOpener, matchOpener, openerWait, readLeadingRecipient, waitAfter } from './native-opener.ts';
import type { OpenerContext, OpenerWait } from './native-opener.ts';

const EVERY_FORMAT: readonly ToolCallFormat[] = ALL_FORMATS;

function context(formats: readonly ToolCallFormat[], tools?: readonly string[]): OpenerContext {
  const set = new Set(formats);
  return { has: (format) => set.has(format), accepts: (name) => tools === undefined || tools.includes(name) };
}

const NATIVE: readonly TextToolFormat[] = ['hermes', 'qwen3-xml', 'seed-oss', 'minimax-m2', 'minimax-m3', 'glm', 'deepseek', 'deepseek-dsml', 'kimi-k2', 'kimi-k3', 'gemma4', 'functiongemma', 'harmony', 'mistral', 'functionary', 'apertus', 'solar-open', 'plamo3', 'minicpm5'];

/** Openers as models write them, and pieces that start like one and then go elsewhere. */
const opener = fc.oneof(
  fc.constantFrom(...NATIVE).map((format) => renderToolCall({ name: 'get_weather', arguments: { city: 'Paris' } }, format)),
  fc.constantFrom(
    '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|> {"a": 1}',
    '<|channel|>final<|message|>Hi',
    '<|channel|>analysis<|message|>x',
    '[TOOL_CALLS] get_weather[CALL_ID]a1b2[ARGS]{"a": 1}',
    '[TOOL_CALLS][{"name": "f", "arguments": {}}]',
    '>>>all\nHi',
    '>>>f \n {"a": 1}',
    '<function=f>  {"a": 1}</function>',
    '<function=f>\n</function>',
    '<tool_call>  \n {"name": "f"}',
    '<tool_call>get_weather\\n<arg_key>a</arg_key>',
    '<tool_call>get_weather \n</tool_call>',
    '<tool_call> tags are',
    '<\uff5ctool_calls_begin\uff5c>',
    '<\uff5ctool calls begin\uff5c>',
    '<think>x</think>',
    '[THINK]x[/THINK]',
    '<|tool_call>call:f{}',
    '<|tool_calls_section_begin|>',
    '<\uff5cDSML\uff5c calls><\uff5cDSML\uff5c invoke name="f">',
    '<\uff5cGCML\uff5ctool_calls><\uff5cGCML\uff5cinvoke name="f">',
    '<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>a</arg_key>',
    '<tool_calls:x1><tool_call:x1>get_weather<arg_key:x1>a</arg_key:x1>',
    '<tool_call:opensource>get_weather  <tool_sep:opensource>',
    '<tool_call:opensource>f</tool_call:opensource>',
    '<tool_call:a b>',
    '<think:opensource>x</think:opensource>',
    '<iquestcoder_tool_call>get_weather\n<arg_key>a</arg_key>',
    '<ifm|tool_call>get_weather<ifm|arg_key>a</ifm|arg_key>',
    '<ifm|tool_call>{"name": "f"}',
    '<dots_function_call>\n <invoke name="f">',
    '<dots_function_call>{"name": "f"}',
    '<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>',
    '<|tool_call:begin|>abc<|tool_call:name|>f<|tool_call:args|>{}<|tool_call:end|>',
    '<tool_call>function\nget_weather\n{"a": 1}</tool_call>',
    '<tool_call>function\n</tool_call>',
    '<function name="get_weather"> text',
    '<function name=\'f\'>\n<param name="a">1</param></function>',
    '<function name="f">\n{"a": 1}</function>',
    '<function name="f"></function>',
    '<function name="">',
    '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|> {"a": 1}',
  ),
);
/** An opener with some of its characters replaced or doubled: near misses of every kind. */
const mutated = fc
  .tuple(opener, fc.array(fc.tuple(fc.nat(), fc.constantFrom('', ' ', '\n', 'x', '>', '<', '|', '[', '{', 'é', ':', '::', 'a'.repeat(130), ' '.repeat(400))), { maxLength: 3 }))
  .map(([text, edits]) => edits.reduce((s, [at, piece]) => s.slice(0, at % (s.length + 1)) + piece + s.slice((at % (s.length + 1)) + 1), text));

/**
 * For every prefix of `text` held back as `'partial'`: each character the wait lets through
 * (the text's own next one, and a few others) leaves the opener undecided.
 */
function checkWaits(text: string, ctx: OpenerContext): void {
  for (let end = 1; end < text.length; end++) {
    const held = text.slice(0, end);
    if (matchOpener(held, 0, ctx, false) !== 'partial') continue;
    const wait = openerWait(held, 0, ctx);
    if (wait === undefined) continue;
    for (const next of [text.charAt(end), ' ', 'a', '>', '<', '[', '{', '\n']) {
      if (next === '' || !keepsWaiting(wait, held, next.charCodeAt(0))) continue;
      expect(matchOpener(held + next, 0, ctx, false), JSON.stringify([held.slice(0, 40), held.length, next, wait])).toBe('partial');
    }
  }
}

describe('openerWait', () => {
  it('only waits where every character it lets through leaves the opener undecided', () => {
    fc.assert(
      fc.property(mutated, fc.subarray([...EVERY_FORMAT], { minLength: 1 }), fc.boolean(), (text, formats, listed) => {
        checkWaits(text, context(formats, listed ? ['get_weather', 'f'] : undefined));
      }),
      { numRuns: 400 },
    );
  });

  it('waits on <function name=…> as Functionary (Hermes 2 Pro) and MiniCPM5 read it, alone and together', () => {
    for (const formats of [['functionary'], ['minicpm5'], ['functionary', 'minicpm5']] as const) {
      for (const tools of [undefined, ['get_weather', 'f']]) {
        const ctx = context(formats, tools);
        for (const text of ['<function name="> text', '<function name="f">\n {"a": 1}', '<function name="f"> <param name="a">1</param></function>', "<function name='f'>x", '<function name="a b">{}']) {
          checkWaits(text, ctx);
        }
      }
    }
  });

  it('waits through namespaced names (ns::tool) and stops at a single colon', () => {
    const ctx = context(EVERY_FORMAT);
    for (const start of ['[TOOL_CALLS]', '>>>', '<function=', '<tool_call>', '<tool_call:x>', '<ifm|tool_call>', '<tool_call>function\n', '<function name="']) {
      for (const name of ['mcp::search', 'a::b::c', 'a:b', 'a:::b', 'a::', `${'a::'.repeat(50)}b`]) checkWaits(`${start}${name}[ARGS]{`, ctx);
    }
    const held = '[TOOL_CALLS]mcp:';
    const wait = openerWait(held, 0, ctx);
    expect(wait?.type).toBe('name');
    if (wait === undefined) return;
    expect(keepsWaiting(wait, held, ':'.charCodeAt(0))).toBe(true);
    expect(keepsWaiting(wait, held, 's'.charCodeAt(0))).toBe(false);
  });

  it('stops waiting at the longest name and header the matchers read', () => {
    const ctx = context(EVERY_FORMAT);
    for (const start of ['[TOOL_CALLS]', '[TOOL_CALLS] ', '>>>', '<function=', '<tool_call>', '<tool_call>\n', '<|channel|>', '<\uff5ctool', '<tool_call:', '<tool_calls:x>', '<tool_call:x>', '<ifm|tool_call>', '<dots_function_call>']) {
      for (const run of ['a'.repeat(132), ' '.repeat(402), `f${' '.repeat(401)}`]) checkWaits(`${start}${run}{`, ctx);
    }
  });

  it('waits through a harmony header until a `>` and through a held name, and not past the header limit', () => {
    const ctx = context(EVERY_FORMAT);
    const header = '<|channel|>commentary to=functions.get';
    expect(openerWait(header, 0, ctx)).toEqual({ type: 'char', char: 0x3e, limit: 400 });
    const mistral = openerWait('[TOOL_CALLS]get_wea', 0, ctx);
    expect(mistral?.type).toBe('name');
    if (mistral === undefined) return;
    expect(keepsWaiting(mistral, '[TOOL_CALLS]get_wea', 't'.charCodeAt(0))).toBe(true);
    expect(keepsWaiting(mistral, '[TOOL_CALLS]get_wea', '['.charCodeAt(0))).toBe(false);
    expect(keepsWaiting({ type: 'char', char: 0x3e, limit: 400 }, '<|channel|>'.padEnd(399, 'x'), 'x'.charCodeAt(0))).toBe(false);
  });

  it('waits on every token a held `<` or `[` may still become, and only while the text is one', () => {
    const ctx = context(EVERY_FORMAT);
    const angle = openerWait('<', 0, ctx);
    expect(angle?.type).toBe('prefix');
    if (angle === undefined) return;
    // `<t` may become `<think>` or `<tool_call>`.
    expect(keepsWaiting(angle, '<t', 'h'.charCodeAt(0))).toBe(true);
    expect(keepsWaiting(angle, '<t', 'o'.charCodeAt(0))).toBe(true);
    expect(keepsWaiting(angle, '<t', 'x'.charCodeAt(0))).toBe(false);
    // `<to` left `<think>` behind: its next character (`n`) does not keep `<ton` waiting.
    expect(keepsWaiting(angle, '<to', 'n'.charCodeAt(0))).toBe(false);
    const bracket = openerWait('[', 0, ctx);
    expect(bracket !== undefined && keepsWaiting(bracket, '[T', 'O'.charCodeAt(0)) && keepsWaiting(bracket, '[T', 'H'.charCodeAt(0))).toBe(true);
    for (const token of ['<tool_call>', '<function=', '<|channel|>', '[TOOL_CALLS]', '<think>', '<seed:tool_call>', '<|tool_call>', '<tool_calls:s>', '<ifm|tool_call>', '<dots_function_call>']) checkWaits(`${token}x`, ctx);
  });

  it('picks the tokens of a held `<` by the next character, the same as comparing them all', () => {
    const ctx = context(EVERY_FORMAT);
    const angle = openerWait('<', 0, ctx);
    expect(angle?.type === 'prefix' && angle.bySecond !== undefined).toBe(true);
    if (angle?.type !== 'prefix') return;
    for (const c of 'tT|\uff5cdisx/ ') {
      const picked = waitAfter(angle, '<', c.charCodeAt(0));
      const compared = waitAfter({ type: 'prefix', tokens: angle.tokens, at: 0, checked: 1 }, '<', c.charCodeAt(0));
      expect(picked?.type === 'prefix' ? [...picked.tokens].sort() : picked).toEqual(compared?.type === 'prefix' ? [...compared.tokens].sort() : compared);
    }
    // Made once per set of formats, for every context that looks for them.
    expect(openerWait('<', 0, ctx)).toBe(angle);
    expect(openerWait('<', 0, context([...EVERY_FORMAT].reverse()))).toBe(angle);
  });

  it('keeps the decisions of one held character per set of formats, a bounded number of sets', () => {
    // A set of formats is keyed as one bit per format of a 32-bit integer.
    expect(ALL_FORMATS.length).toBeLessThanOrEqual(31);
    const some = context(['call', 'json', 'kimi-k2']);
    const decisions = loneDecisions(some);
    expect(loneDecisions(context(['kimi-k2', 'json', 'call']))).toBe(decisions);
    expect(loneDecisions(context(['call', 'json']))).not.toBe(decisions);
    expect(loneOpener(0x3c, decisions, some)).toBe(openerWait('<', 0, some));
    // Many sets of formats (a caller building options per request): the oldest sets are dropped, and made again when asked for.
    for (let bits = 1; bits <= 200; bits++) loneDecisions(context(ALL_FORMATS.filter((_, k) => (bits & (1 << k)) !== 0)));
    const again = loneDecisions(some);
    expect(again).not.toBe(decisions);
    expect(loneOpener(0x3c, again, some)).toEqual(loneOpener(0x3c, decisions, some));
    expect(loneOpener(0x3e, again, some)).toBe('text');
    expect(loneOpener(0x3e, loneDecisions(context(['functionary'])), context(['functionary']))).toMatchObject({ type: 'prefix', tokens: ['>>>'] });
  });

  it('narrows a prefix wait to the tokens a streamed character continues, comparing only that character', () => {
    const ctx = context(EVERY_FORMAT);
    let held = '<';
    let wait: OpenerWait | undefined = openerWait(held, 0, ctx);
    for (const c of '|tool_calls_section_begin') {
      wait = wait === undefined ? undefined : waitAfter(wait, held, c.charCodeAt(0));
      held += c;
    }
    // Only the Kimi section tokens begin `<|tool_calls_section_begin`, and the wait knows the held text matches them.
    expect(wait).toEqual({ type: 'prefix', tokens: ['<|tool_calls_section_begin|>'], at: 0, checked: held.length });
    if (wait === undefined) return;
    expect(waitAfter(wait, held, '|'.charCodeAt(0))).toBeDefined();
    // The token's last character decides it (the opener is read again).
    expect(waitAfter(waitAfter(wait, held, '|'.charCodeAt(0)) ?? wait, `${held}|`, '>'.charCodeAt(0))).toBeUndefined();
    // Given a held text it has not seen, a wait compares all of it (as `keepsWaiting` always did).
    const angle = openerWait('<', 0, ctx);
    expect(angle !== undefined && waitAfter(angle, '<x', 'h'.charCodeAt(0))).toBeUndefined();
  });
});

describe('readLeadingRecipient', () => {
  it('reads ` to=functions.NAME` with space around it, waits on its prefixes, and refuses anything else', () => {
    expect(readLeadingRecipient(' to=functions.get_time ')).toEqual({ name: 'get_time' });
    expect(readLeadingRecipient('to=functions.a.b')).toEqual({ name: 'a.b' });
    for (const prefix of ['', '  ', ' t', 'to=func', 'to=functions.']) expect(readLeadingRecipient(prefix), prefix).toBe('prefix');
    for (const other of ['x', 'to=browser.search', 'to=functions.f x', 'Hi to=functions.f', `to=functions.${'a'.repeat(200)}`]) expect(readLeadingRecipient(other), other).toBeUndefined();
  });

  it('turns a first harmony header into a call only when the context reports a role-part recipient', () => {
    const header = '<|channel|>analysis<|message|>{"a": 1}';
    const plain = context(['harmony']);
    expect(matchOpener(header, 0, plain, true)).toMatchObject({ type: 'reasoning' });
    const led: OpenerContext = { ...plain, leadingRecipient: () => 'f' };
    expect(matchOpener(header, 0, led, true)).toEqual({ type: 'marker', name: 'f', length: header.indexOf('{') });
    expect(matchOpener(header, 0, { ...led, accepts: () => false }, true)).toEqual({ type: 'text', length: header.indexOf('{') });
  });
});
