import { describe, expect, it } from 'vitest';
import { CallTextCleaner } from './call-text-cleaner.ts';

/** Runs the cleaner over pieces; `null` marks where a call was taken out. */
function clean(pieces: readonly (string | null)[]): string {
  const cleaner = new CallTextCleaner();
  let out = '';
  for (const piece of pieces) {
    if (piece === null) out += cleaner.call();
    else out += cleaner.text(piece);
  }
  return out + cleaner.end();
}

describe('CallTextCleaner', () => {
  it('removes the brackets and commas of a call list', () => {
    expect(clean(['Sure.\n[', null, ', ', null, ']'])).toBe('Sure.');
  });

  it('removes call markers and leaked end tokens', () => {
    expect(clean(['<tool_call>\n', null, '\n</tool_call><end_of_turn>'])).toBe('');
    expect(clean(['[TOOL_CALLS]', null])).toBe('');
  });

  it('keeps brackets, commas and markers-lookalikes that frame no call', () => {
    expect(clean(['A list [1, 2], and <b>bold</b> [TOOL] text.'])).toBe('A list [1, 2], and <b>bold</b> [TOOL] text.');
  });

  it('keeps the line break between a call and the text after it', () => {
    expect(clean(['Checking.\n', null, '\nDone.'])).toBe('Checking.\nDone.');
  });

  it('gives the same result however the text is split', () => {
    const whole = clean(['Ok <tool_call>', null, '</tool_call> then [x].']);
    const split = clean(['Ok <to', 'ol_c', 'all>', null, '</tool', '_call> then [', 'x].']);
    expect(split).toBe(whole);
    expect(whole).toBe('Ok then [x].');
  });

  it('releases a held marker prefix at the end when no marker followed', () => {
    expect(clean(['value <tool'])).toBe('value <tool');
  });
});

describe('CallTextCleaner: native framing', () => {
  it('removes harmony framing and end tokens around a final answer', () => {
    const cleaner = new CallTextCleaner();
    const shown = ['<|start|>assistant<|channel|>final<|mes', 'sage|>It is 7.<|return|>'].map((part) => cleaner.text(part)).join('') + cleaner.end();
    expect(shown).toBe('It is 7.');
    expect(clean(['<|channel|>commentary<|mess', "age|>Let me look.<|end|>"])).toBe('Let me look.');
  });

  it("removes Kimi's end tokens left after a call written without its section", () => {
    expect(clean(['Done.', null, '<|tool_call_', 'end|><|tool_calls_section_end|> Bye.'])).toBe('Done. Bye.');
  });
});

describe('CallTextCleaner: Kimi K2 (no content) placeholder', () => {
  it('drops the placeholder when it is the whole text before the first call', () => {
    expect(clean(['(no content)', null])).toBe('');
    expect(clean(['\n(no con', 'tent) \n', null, '\nDone.'])).toBe('\nDone.');
  });

  it('keeps it when no call follows, when more text follows, or later in the answer', () => {
    expect(clean(['(no content)'])).toBe('(no content)');
    expect(clean(['(no content) in the file', null])).toBe('(no content) in the file');
    expect(clean(['Ok. (no content)', null])).toBe('Ok. (no content)');
    expect(clean(['x', null, '(no content)'])).toBe('x(no content)');
  });

  it('shows a held prefix that was not the placeholder before the call', () => {
    expect(clean(['(no', null])).toBe('(no');
  });
});
