import { describe, expect, it } from 'vitest';
import { isNamespacedName } from '../identifier.ts';
import type { NativeContext } from './native-call.ts';
import { hunyuanBlockTags, hunyuanTags, IFM_TAGS, parsePairCalls, SOLAR_TAGS } from './pair-tag-calls.ts';

const untyped: NativeContext = { schemaOf: () => undefined };
const typed: NativeContext = { schemaOf: () => ({ type: 'object', properties: { n: { type: 'integer' } } }) };

function read(text: string, tags = hunyuanTags(''), context = untyped) {
  return parsePairCalls(text, 0, text.length, tags, context).map(({ name, args }) => ({ name, args }));
}

describe('parsePairCalls', () => {
  it('reads the name up to the first tag, then key/value pairs, several calls in order', () => {
    expect(read('<tool_call> f \\n<tool_sep><arg_key> a </arg_key>\n<arg_value> x </arg_value></tool_call>junk<tool_call>g</tool_call>')).toEqual([
      { name: 'f', args: { a: ' x ' } },
      { name: 'g', args: {} },
    ]);
  });

  it('types values by the schema, else by a type tag the model wrote', () => {
    const text = '<ifm|tool_call>f<ifm|arg_key>n</ifm|arg_key><ifm|arg_value>2</ifm|arg_value><ifm|arg_key>m</ifm|arg_key><ifm|arg_type>array[integer]</ifm|arg_type><ifm|arg_value>[1]</ifm|arg_value><ifm|arg_key>o</ifm|arg_key><ifm|arg_type>any</ifm|arg_type><ifm|arg_value>[1]</ifm|arg_value></ifm|tool_call>';
    expect(read(text, IFM_TAGS)).toEqual([{ name: 'f', args: { n: '2', m: [1], o: '[1]' } }]);
    expect(read(text, IFM_TAGS, typed)).toEqual([{ name: 'f', args: { n: 2, m: [1], o: '[1]' } }]);
  });

  it('reads values that start right after the key (Solar Open 2)', () => {
    expect(read('<|tool_call:start|>f\n<|tool_arg:start|>q<|tool_arg:value|>a b<|tool_arg:end|>\n<|tool_call:end|>', SOLAR_TAGS)).toEqual([{ name: 'f', args: { q: 'a b' } }]);
  });

  it('stops at a call that never closes, and drops calls without a plain name', () => {
    expect(read('<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call><tool_call>g<arg_key>a</arg_key><arg_value>1')).toEqual([{ name: 'f', args: { a: '1' } }]);
    expect(read('<tool_call>a b<arg_key>k</arg_key><arg_value>1</arg_value></tool_call><tool_call></tool_call>')).toEqual([]);
  });

  it('sets a key named __proto__ as an argument, not as the prototype', () => {
    const [call] = read('<tool_call>f<arg_key>__proto__</arg_key><arg_value>{"polluted": true}</arg_value></tool_call>');
    expect(Object.keys(call?.args ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(call?.args)).toBe(Object.prototype);
  });

  it('finds a block’s suffix from its opener', () => {
    expect(hunyuanBlockTags('<tool_calls:ab><tool_call:ab>f</tool_call:ab></tool_calls:ab>', '<tool_calls:ab>'.length).call).toBe('<tool_call:ab>');
    expect(hunyuanBlockTags('<tool_call:q>f</tool_call:q>', '<tool_call:q>'.length).callClose).toBe('</tool_call:q>');
  });
});

describe('isNamespacedName', () => {
  it('accepts valid names joined by ::, nothing else', () => {
    for (const name of ['ns::tool', 'a.b::c-d', 'x::y::z']) expect(isNamespacedName(name)).toBe(true);
    for (const name of ['tool', '::tool', 'ns::', 'a:::b', 'a:b', 'a:: b', `${'a'.repeat(120)}::${'b'.repeat(10)}`]) expect(isNamespacedName(name)).toBe(false);
  });
});
