import { describe, expect, it } from 'vitest';
import type { NativeContext } from './native-call.ts';
import { parseXmlCalls, QWEN_XML } from './xml-calls.ts';

const untyped: NativeContext = { schemaOf: () => undefined };

function argsOf(text: string): Record<string, unknown> | undefined {
  return parseXmlCalls(text, 0, text.length, QWEN_XML, untyped)[0]?.args;
}

describe('parseXmlCalls (Qwen3 XML, Seed-OSS)', () => {
  it('strips the newline after the opening tag and its pair before the closing tag', () => {
    expect(argsOf('<function=f>\n<parameter=a>\nx\n</parameter>\n</function>')).toEqual({ a: 'x' });
    expect(argsOf('<function=f>\n<parameter=a>\nx\n\n</parameter>\n</function>')).toEqual({ a: 'x\n' });
  });

  it('keeps the last newline of a value that opens without one (Seed-OSS code)', () => {
    expect(argsOf('<function=edit>\n<parameter=code>pass\n</parameter>\n</function>')).toEqual({ code: 'pass\n' });
    expect(argsOf('<function=edit>\n<parameter=code>pass</parameter>\n</function>')).toEqual({ code: 'pass' });
  });
});
