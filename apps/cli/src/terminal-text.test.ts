import { describe, expect, it } from 'vitest';
import { createVisibleStream, quoteArgument, visible } from './terminal-text.ts';

describe('visible', () => {
  it('shows CSI, OSC, DCS and C1 sequences as escapes instead of passing them to the terminal', () => {
    expect(visible('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(visible('\u001b]0;title\u0007')).toBe('\\x1b]0;title\\x07');
    expect(visible('\u001b]52;c;ZXZpbA==\u001b\\')).toBe('\\x1b]52;c;ZXZpbA==\\x1b\\');
    expect(visible('\u001bP+q\u001b\\')).toBe('\\x1bP+q\\x1b\\');
    expect(visible('x\u009b31m')).toBe('x\\u009b31m');
    expect(visible('\u001b[201~')).toBe('\\x1b[201~');
  });

  it('shows a lone carriage return, backspaces and bidi overrides', () => {
    expect(visible('safe\rrm -rf ~', { multiline: true })).toBe('safe\\rrm -rf ~');
    expect(visible('ab\b\bcd')).toBe('ab\\x08\\x08cd');
    expect(visible('file\u202Etxt.exe')).toBe('file\\u202etxt.exe');
    expect(visible('\u2066x\u2069')).toBe('\\u2066x\\u2069');
  });

  it('keeps line ends, tabs, CRLF and emoji in prose; shows line ends on one line', () => {
    expect(visible('a\n\tb\r\nc 👩‍💻', { multiline: true })).toBe('a\n\tb\nc 👩‍💻');
    expect(visible('a\nb')).toBe('a\\nb');
    expect(visible('plain text, ünïcödé')).toBe('plain text, ünïcödé');
  });
});

describe('createVisibleStream', () => {
  it('treats escapes the same however the text is chunked, holding a trailing \\r for the next chunk', () => {
    const stream = createVisibleStream();
    const out = ['line one\r', '\nover\r', 'written\u001b', '[2J', 'end\r'].map((chunk) => stream.push(chunk)).join('') + stream.end();
    expect(out).toBe('line one\nover\\rwritten\\x1b[2Jend\\r');
  });
});

describe('quoteArgument', () => {
  it('leaves plain words bare and quotes the rest with invisible characters shown', () => {
    expect(quoteArgument('ls')).toBe('ls');
    expect(quoteArgument('./a-b_c.txt')).toBe('./a-b_c.txt');
    expect(quoteArgument('')).toBe('""');
    expect(quoteArgument('a b')).toBe('"a b"');
    expect(quoteArgument('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
    expect(quoteArgument('r\u200Bm')).toBe('"r\\u200bm"');
    expect(quoteArgument('doc\u202Efdp.sh')).toBe('"doc\\u202efdp.sh"');
    expect(quoteArgument('\u001b[1A\u001b[2Kls')).toBe('"\\x1b[1A\\x1b[2Kls"');
  });
});
