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
  });
});

describe('CallTextCleaner: wrappers of the classic formats', () => {
  it('removes the call-block tokens of LFM2, OLMo 3, Llama 4, Granite, Jamba, InternLM2 and Cohere', () => {
    expect(clean(['Let me check. <|tool_call_start|>[', null, ']<|tool_call_end|>\nDone.'])).toBe('Let me check.\nDone.');
    expect(clean(['<function_calls>', null, '\n', null, '</function_calls>'])).toBe('');
    expect(clean(['<|python_start|>[', null, ']<|python_end|>'])).toBe('');
    expect(clean(['<|tool_call|> [', null, ']'])).toBe('');
    expect(clean([' Sure!<tool_calls>[\n    ', null, '\n]</tool_calls>'])).toBe(' Sure!');
    expect(clean(['<|action_start|><|plugin|>', null, '<|action_end|>'])).toBe('');
    expect(clean(['Ok.\n<longcat_tool_call>', null, '</longcat_tool_call>'])).toBe('Ok.');
    expect(clean(['<|START_RESPONSE|>Hi<|END_RESPONSE|>'])).toBe('Hi');
    expect(clean(['<|START_TEXT|>Hi<|END_TEXT|>'])).toBe('Hi');
    expect(clean(['Hi.<|message_sep|>\n\nfunction call<|role_sep|>\n', null])).toBe('Hi.');
    expect(clean(['<|START_ACTION|>\n[', null, ']\n<|END_ACTION|>'])).toBe('');
    expect(clean(['>>', '>all\nHello', null])).toBe('Hello');
    expect(clean(['a > b >> c >>> d'])).toBe('a > b >> c >>> d');
  });

  it('removes a code fence that only frames calls, and keeps other fences', () => {
    expect(clean(['Sure.\n```json\n[', null, ']\n```'])).toBe('Sure.');
    expect(clean(['Sure.\n``', '`js', 'on\n[', null, ']\n`', '``'])).toBe('Sure.');
    expect(clean(['Example:\n```json\n{"a": 1}\n```'])).toBe('Example:\n```json\n{"a": 1}\n```');
    expect(clean([null, '\n```python\nprint(1)\n```'])).toBe('\n```python\nprint(1)\n```');
    expect(clean(['Code:\n```'])).toBe('Code:\n```');
  });

  it('keeps the end of a tag it does not know right before a call', () => {
    expect(clean(['<custom_call>', null, '</custom_call>'])).toBe('<custom_call></custom_call>');
    expect(clean(['Is 2 <', null])).toBe('Is 2 <');
    expect(clean(['Sure.\n```json', null, '```'])).toBe('Sure.');
  });

  it('removes the wrapper tags around a JSON call (<tools>, <response>, <json>, …), and keeps XML in an answer', () => {
    expect(clean(['<tools>\n  ', null, '\n</tools>'])).toBe('');
    expect(clean(['```xml\n<resp', 'onse>\n    ', null, '\n</response>\n```'])).toBe('');
    expect(clean(['Sure.<json>', null, '</json> Done.'])).toBe('Sure. Done.');
    expect(clean(['The root is <response>ok</response> and <xml> stays.'])).toBe('The root is <response>ok</response> and <xml> stays.');
    expect(clean([null, ' then </tools> is text'])).toBe(' then </tools> is text');
    expect(clean(['<tools>\n', null, '\n</tools>\n<tools>\n', null, '\n</tools>'])).toBe('');
    expect(clean(['<tools>', null, '</tools>\n<tools> is the tag.'])).toBe('\n<tools> is the tag.');
  });

  it("removes functools and Cohere's Action: before a call, and keeps them otherwise", () => {
    expect(clean(['Checking.\nfunctools[', null, ']\nMore?'])).toBe('Checking.\nMore?');
    expect(clean([' func', 'tools[', null, ']'])).toBe('');
    expect(clean(['Action:\n```json\n[', null, ']\n```'])).toBe('');
    expect(clean(['The functools module. Action: none.'])).toBe('The functools module. Action: none.');
    expect(clean(['Use functools'])).toBe('Use functools');
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
