import { describe, expect, it } from 'vitest';
import type { NativeContext } from './native-call.ts';
import { MINIMAX_XML, parseXmlCalls, QWEN_XML, SEED_XML } from './xml-calls.ts';

const untyped: NativeContext = { schemaOf: () => undefined };
const writeFile: NativeContext = { schemaOf: () => ({ type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } }) };

function argsOf(text: string, context: NativeContext = untyped): Record<string, unknown> | undefined {
  return parseXmlCalls(text, 0, text.length, QWEN_XML, context)[0]?.args;
}

describe('parseXmlCalls (Qwen3 XML, Seed-OSS)', () => {
  it('strips the newline after the opening tag and its pair before the closing tag', () => {
    expect(argsOf('<function=f>\n<parameter=a>\nx\n</parameter>\n</function>')).toEqual({ a: 'x' });
    expect(argsOf('<function=f>\n<parameter=a>\nx\n\n</parameter>\n</function>')).toEqual({ a: 'x\n' });
  });

  it('Seed-OSS: keeps the last newline of a value that opens without one (code)', () => {
    const seed = (text: string): unknown => parseXmlCalls(text, 0, text.length, SEED_XML, untyped)[0]?.args;
    expect(seed('<function=edit>\n<parameter=code>pass\n</parameter>\n</function>')).toEqual({ code: 'pass\n' });
    expect(seed('<function=edit>\n<parameter=code>pass</parameter>\n</function>')).toEqual({ code: 'pass' });
    expect(seed('<function=edit>\n<parameter=code>\npass\n</parameter>\n</function>')).toEqual({ code: 'pass' });
  });

  it('Qwen3: strips the opening and the closing newline each where it is (as vLLM does)', () => {
    expect(argsOf('<function=f>\n<parameter=unit>celsius\n</parameter>\n</function>')).toEqual({ unit: 'celsius' });
    expect(argsOf('<function=f>\n<parameter=unit>\ncelsius</parameter>\n</function>')).toEqual({ unit: 'celsius' });
  });

  it('keeps a quoted parameter of a name already given inside a value', () => {
    const content = 'doc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""';
    const text = `<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>`;
    expect(argsOf(text)).toEqual({ path: 'fixture.py', content });
  });

  it('keeps a quoted parameter the schema does not have inside a value', () => {
    const content = 'T = """\n</parameter>\n<parameter=new_string>\n#!/usr/bin/env python3\n</parameter>\n"""';
    const text = `<function=write_file>\n<parameter=path>\nt.py\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>`;
    expect(argsOf(text, writeFile)).toEqual({ path: 't.py', content });
  });

  it('still closes a value whose closing tag is missing at the next parameter line', () => {
    const text = '<function=f>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n</parameter>\n</function>';
    expect(argsOf(text)).toEqual({ city: 'Dallas', state: 'TX' });
  });

  it('ends a value quoting a lone parameter opener at its own closing tag before the next parameter', () => {
    expect(argsOf('<function=f>\n<parameter=a>\nsplit("<parameter=a>")\n</parameter>\n<parameter=b>\nB\n</parameter>\n</function>')).toEqual({
      a: 'split("<parameter=a>")',
      b: 'B',
    });
    // A Jinja template edit: the quoted opener's key is an expression, the next parameter a real one.
    const old = "{{ '<parameter=' ~ k ~ '>' }}";
    const edit = `<function=edit>\n<parameter=old_string>\n${old}\n</parameter>\n<parameter=new_string>\nx\n</parameter>\n</function>`;
    expect(argsOf(edit)).toEqual({ old_string: old, new_string: 'x' });
    const typed: NativeContext = { schemaOf: () => ({ type: 'object', properties: { old_string: { type: 'string' }, new_string: { type: 'string' } } }) };
    expect(argsOf(edit, typed)).toEqual({ old_string: old, new_string: 'x' });
  });

  it('keeps a later value\'s own closing tag after a value that ended at its fallback', () => {
    const text = '<function=f>\n<parameter=a>\nQ <parameter=a> <parameter=a> x\n</parameter>\n</b>\n<parameter=b>\nB\n</parameter>\n</function>';
    expect(argsOf(text)).toEqual({ a: 'Q <parameter=a> <parameter=a> x', b: 'B' });
  });

  it('takes `<parameter=` without its `>` for text', () => {
    const value = 'x <parameter=x <parameter=';
    expect(argsOf(`<function=f>\n<parameter=a>\n${value}\n</parameter>\n</function>`)).toEqual({ a: value });
  });
});

describe('parseXmlCalls with a schema, a parameter it does not list', () => {
  const schema: NativeContext = { schemaOf: () => ({ type: 'object', properties: { city: { type: 'string' } } }) };

  it('is a parameter of its own when its value ends like one (a made-up parameter stays visible to validation)', () => {
    const text = '<function=f>\n<parameter=city>\nParis\n</parameter>\n<parameter=extra>\nx\n</parameter>\n</function>';
    expect(parseXmlCalls(text, 0, text.length, QWEN_XML, schema)[0]?.args).toEqual({ city: 'Paris', extra: 'x' });
  });
});

describe('parseXmlCalls (MiniMax-M2)', () => {
  const edit: NativeContext = { schemaOf: () => ({ type: 'object', properties: { old: { type: 'string' }, indent: { type: 'integer' } } }) };
  const text = '<invoke name="edit">\n<parameter name="old">    if x:\n</parameter>\n<parameter name="indent"> 4 </parameter>\n<parameter name="note"> hi </parameter>\n</invoke>';

  it("keeps a string property's surrounding space (the template writes strings as they are), trims the rest", () => {
    expect(parseXmlCalls(text, 0, text.length, MINIMAX_XML, edit)[0]?.args).toEqual({ old: '    if x:\n', indent: 4, note: 'hi' });
  });

  it('ends a value quoting a lone parameter opener at its own closing tag before the next parameter', () => {
    const quoted = '<invoke name="edit">\n<parameter name="old">x = \'<parameter name="old">\'</parameter>\n<parameter name="indent">4</parameter>\n</invoke>';
    expect(parseXmlCalls(quoted, 0, quoted.length, MINIMAX_XML, edit)[0]?.args).toEqual({ old: 'x = \'<parameter name="old">\'', indent: 4 });
  });

  it('trims a string property with an enum or const, or of a union with another type', () => {
    const typed: NativeContext = {
      schemaOf: () => ({
        type: 'object',
        properties: { unit: { type: 'string', enum: ['celsius'] }, mode: { const: 'fast' }, id: { type: ['string', 'integer'] }, note: { type: ['string', 'null'] } },
      }),
    };
    const call = '<invoke name="f">\n<parameter name="unit"> celsius </parameter>\n<parameter name="mode"> fast </parameter>\n<parameter name="id"> 7 </parameter>\n<parameter name="note">  hi </parameter>\n</invoke>';
    expect(parseXmlCalls(call, 0, call.length, MINIMAX_XML, typed)[0]?.args).toEqual({ unit: 'celsius', mode: 'fast', id: 7, note: '  hi ' });
  });

  it('trims untyped values', () => {
    expect(parseXmlCalls(text, 0, text.length, MINIMAX_XML, untyped)[0]?.args).toEqual({ old: 'if x:', indent: '4', note: 'hi' });
  });
});
