import fc from 'fast-check';
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

describe('CallTextCleaner: brackets and separators of text (review of #16, M4)', () => {
  it('keeps the brackets of links, citations and bracketed lists next to a call', () => {
    expect(clean(['Let me check.\n', null, '\n[Weather.com](https://weather.com) has a forecast.'])).toBe('Let me check.\n[Weather.com](https://weather.com) has a forecast.');
    expect(clean([null, '\n[1] The Rust Programming Language'])).toBe('\n[1] The Rust Programming Language');
    expect(clean(['I found two candidates [Paris, Lyon]\n', null])).toBe('I found two candidates [Paris, Lyon]');
    expect(clean(['As shown in [1]\n<tool_call>', null, '</tool_call>'])).toBe('As shown in [1]');
    expect(clean(['Items: [a, b]\n', null])).toBe('Items: [a, b]');
    expect(clean(['see [ ]\n', null])).toBe('see [ ]');
  });

  it('removes a [ only before a call and a ] only when it closes such a [', () => {
    expect(clean(['[', null, ', ', null, ']\nDone.'])).toBe('\nDone.');
    expect(clean(['Both:\n[\n  ', null, ',\n  ', null, '\n]'])).toBe('Both:');
    expect(clean(['[', null, '] [', null, ']'])).toBe('');
    // The calls did not fill the brackets: the [ is shown again.
    expect(clean(['x [', null, ' is what I would run]'])).toBe('x [ is what I would run]');
    expect(clean(['[', null, '] ] more'])).toBe(' ] more');
  });

  it('keeps separators of the text after a call on its line, and drops those that end the call', () => {
    expect(clean(['I will search', null, ', and then read.'])).toBe('I will search, and then read.');
    expect(clean(['Plan:\n', null, ';\nDone.'])).toBe('Plan:\nDone.');
    expect(clean(['Sure, ', null])).toBe('Sure,');
    expect(clean([null, ';', null, ';'])).toBe('');
  });
});

describe('CallTextCleaner: a fence that holds more than calls (review of #16, M5)', () => {
  it('shows the opening fence again when text comes before the closing fence', () => {
    expect(clean(['Run this:\n```python\n', null, '\nprint("done")\n```\nThat prints done.'])).toBe('Run this:\n```python\nprint("done")\n```\nThat prints done.');
    expect(clean(['```json\n', null, '\n// the call above searches\n```\nMore text.'])).toBe('```json\n// the call above searches\n```\nMore text.');
    expect(clean(['```\n', null, '\n', null, '\nprint(1)\n```'])).toBe('```\nprint(1)\n```');
    expect(clean(['```json\n[', null, ']\nnote\n```'])).toBe('```json\nnote\n```');
  });

  it('removes a fence whose closing fence comes right after the calls, or that the answer ends in', () => {
    expect(clean(['Sure.\n```json\n', null, '\n', null, '\n```\nDone.'])).toBe('Sure.\nDone.');
    expect(clean(['Sure.\n```json\n', null])).toBe('Sure.');
    expect(clean(['Sure.\n```json\n', null, '\n  \n'])).toBe('Sure.');
  });
});

describe('CallTextCleaner: markers in text (review of #16, L2)', () => {
  it('keeps call markers and end tokens in text that explains a format', () => {
    const prose = 'Hermes wraps each call in <tool_call> and </tool_call>; PHP has no </function> tag, R1 closes reasoning with </think>. gpt-oss ends with <|end|>.';
    expect(clean([prose])).toBe(prose);
    expect(clean(Array.from(prose))).toBe(prose);
    expect(clean(['Use [TOOL_CALLS] then the list.'])).toBe('Use [TOOL_CALLS] then the list.');
  });

  it("removes them at the answer's start and end, and next to a call", () => {
    expect(clean(['<|im_end|>Hi<|im_end|>'])).toBe('Hi');
    expect(clean(['\n</think>\n\nThe answer.<end_of_turn>\n'])).toBe('\n\n\nThe answer.');
    expect(clean(['Sure. <tool_call>', null, '</tool_call> then more.'])).toBe('Sure. then more.');
    expect(clean(['Done.', null, '\n<|im_end|>'])).toBe('Done.');
    expect(clean(['Text ends in a marker <|eot_id|> <|im_end|>'])).toBe('Text ends in a marker ');
  });

  it("removes harmony's framing between a commentary preamble and the final answer", () => {
    const answer = '<|channel|>commentary<|message|>Let me look.<|end|><|start|>assistant<|channel|>final<|message|>It is 7.<|return|>';
    expect(clean([answer])).toBe('Let me look.It is 7.');
    expect(clean(Array.from(answer))).toBe('Let me look.It is 7.');
    expect(clean(['Let me look.<|end|>\n', '<|start|>assist', 'ant<|channel|>final<|message|>It is 7.'])).toBe('Let me look.It is 7.');
  });
});

describe('CallTextCleaner: a call in an inline code span (review of #16, L3)', () => {
  it('removes backticks right around a call', () => {
    expect(clean(['You can run `', null, '` yourself.'])).toBe('You can run yourself.');
    expect(clean(['Run ``', null, '`` now'])).toBe('Run now');
    expect(clean(['`', null, '`'])).toBe('');
  });

  it('shows a backtick whose pair is not right after the call', () => {
    expect(clean(['Run `', null, ' and see'])).toBe('Run ` and see');
    expect(clean(['Run `', null, ' `x` later'])).toBe('Run ` `x` later');
  });
});

describe("CallTextCleaner: Hunyuan A13B's <answer> (review of #16, L4)", () => {
  it('removes <answer> right around calls, and keeps an answer written in it', () => {
    expect(clean(['<answer>\n<tool_calls>[', null, ']</tool_calls>\n</answer>'])).toBe('');
    expect(clean(['<answer>The answer is 4.</answer>'])).toBe('<answer>The answer is 4.</answer>');
    expect(clean(['<answer>\nLet me check.\n<tool_calls>[', null, ']</tool_calls>\n</answer>'])).toBe('<answer>\nLet me check.\n</answer>');
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

  it('keeps the end of a tag that is no wrapper right before a call', () => {
    expect(clean(['<custom>', null, '</custom>'])).toBe('<custom></custom>');
    expect(clean(['<custom_call>', null, '</custom_call>'])).toBe('');
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

describe('CallTextCleaner: what wrapped a call', () => {
  it('removes any tag right around a call, whatever its name', () => {
    expect(clean(['Here:\n<tools>', null, '</tools>'])).toBe('Here:');
    expect(clean(['Hi <longcat_tool_call>', null, '</longcat_tool_call> bye'])).toBe('Hi bye');
    expect(clean(['<TOOLCALL>[', null, ']</TOOLCALL>'])).toBe('');
    expect(clean(['<tool_calls>[', null, ', ', null, ']</tool_calls>\nDone.'])).toBe('\nDone.');
    expect(clean(['<function_calls>\n', null, '\n</function_calls>'])).toBe('');
    expect(clean(['<|action_start|><|plugin|>\n', null, '<|action_end|>'])).toBe('');
  });

  it('removes a fence, Action: and functools right before a call, and the fence after it', () => {
    expect(clean(['Let me check.\n```json\n', null, '\n```'])).toBe('Let me check.');
    expect(clean(['Action: ```json\n', null, '\n```'])).toBe('');
    expect(clean(['functools[', null, ']'])).toBe('');
    expect(clean(['```tool_code\n', null, '\n```\nThe answer follows.'])).toBe('\nThe answer follows.');
  });

  it('keeps tags, fences and words that wrap no call', () => {
    expect(clean(['Use <b>bold</b> and ```js\ncode\n``` here; Action: none, functools.'])).toBe('Use <b>bold</b> and ```js\ncode\n``` here; Action: none, functools.');
    expect(clean(['Ends with <tools>'])).toBe('Ends with <tools>');
    expect(clean(['Ends with a fence ```'])).toBe('Ends with a fence ```');
    expect(clean(['Ends in a partial <tool_ca'])).toBe('Ends in a partial <tool_ca');
    expect(clean(['A word: functools'])).toBe('A word: functools');
    // Text after the call, then a closing tag: not the call's.
    expect(clean(['<tools>', null, 'Then </tools> stays.'])).toBe('Then </tools> stays.');
    // An opening tag after a call opens nothing.
    expect(clean([null, '\n<b>x</b>'])).toBe('\n<b>x</b>');
  });

  it('keeps an opener word that is part of a longer word', () => {
    expect(clean(['myfunctools', null])).toBe('myfunctools');
    expect(clean(['Reaction:', null])).toBe('Reaction:');
  });

  it('looks back over at most 96 characters for an opener', () => {
    const tokens = '<|a|>'.repeat(60);
    const shown = clean([`text ${tokens}`, null]);
    expect(shown.startsWith('text <|a|>')).toBe(true);
    expect(shown.length).toBeLessThan(`text ${tokens}`.length);
    expect(shown.length).toBeGreaterThan('text '.length + 5 * 60 - 96 - 5);
  });

  it('removes after a call only the closers its openers owe', () => {
    // Two fenced calls in a row: the second fence opens, it does not close.
    expect(clean(['Checking both.\n```json\n', null, '\n```\n```json\n', null, '\n```'])).toBe('Checking both.');
    // A code block right after a call keeps its fence; so does one after a call that no fence opened.
    expect(clean(['```json\n', null, '\n```\n```python\nprint(1)\n```\nDone.'])).toBe('\n```python\nprint(1)\n```\nDone.');
    expect(clean(['x', null, '\n```\nDone'])).toBe('x\n```\nDone');
    expect(clean(['x', null, '\n</details>\nMore'])).toBe('x\n</details>\nMore');
    // An opener not read as one (a language with +) leaves its fence, and so the closing fence.
    expect(clean(['```c++\n', null, '\n```\nDone'])).toBe('```c++\n```\nDone');
    // Closers by name and innermost first; a special token closes a special token.
    expect(clean(['<tool_calls><ifm|tool_call>', null, '</ifm|tool_call></tool_calls> ok'])).toBe(' ok');
    expect(clean(['<tool_calls>', null, '</other></tool_calls>'])).toBe('</other></tool_calls>');
    expect(clean(['<|action_start|><|plugin|>\n', null, '<|action_end|>\n<|action_start|><|plugin|>\n', null, '<|action_end|>'])).toBe('');
  });

  it('shows what could only have grown into an opener when a call follows', () => {
    expect(clean(['Plan A', null])).toBe('Plan A');
    expect(clean(['I need to call f', null])).toBe('I need to call f');
    expect(clean(['a `` ', null])).toBe('a ``');
    expect(clean(['Run ` ', null, ' ` to see'])).toBe('Run ` ` to see');
    expect(clean(['2 < 3 and 4 <', null])).toBe('2 < 3 and 4 <');
    expect(clean(['value <tool', null])).toBe('value <tool');
  });

  it('reads opener words only where they start a line', () => {
    expect(clean(['Step 1. Next Action: ', null])).toBe('Step 1. Next Action:');
    expect(clean(["I'll make a function call\n", null])).toBe("I'll make a function call");
    expect(clean(['In Python, use functools', null])).toBe('In Python, use functools');
    expect(clean(['Plan.\n  Action: ```json\n', null, '\n```'])).toBe('Plan.');
  });

  it('keeps a tag before a call that is no wrapper', () => {
    expect(clean(['<b>', null, 'Done</b>'])).toBe('<b>Done</b>');
    expect(clean(['text\n<br>\n', null])).toBe('text\n<br>');
  });

  it('gives the same result however the text is split (property)', () => {
    const piece = fc.constantFrom(
      'Sure. ', 'x', ' ', '\n', '[', ']', ', ', '<tools>', '</tools>', '<b>', '</b>', '<|plugin|>', '<|end_x|>', '```', '```json\n', '`', 'Action:', 'Action: ',
      'functools', 'func', 'A', '<tool_call>', '</tool_call>', '<', '</', '<|', '(no content)', 'the ', 'function call', 'function', '**Tool Call:**', '**', '<ifm|x>',
      '</ifm|x>', '-> tool/function_call', '->', '|',
      // Brackets of text, links, fences with code after the call, markers in prose, code spans.
      '[1]', '[x](https://a.b)', ';', ',', '```python\n', 'print(1)\n', '\n```', '``', '<|end|>', '</think>', '[TOOL_CALLS]', '>>>all\n', '<answer>', '</answer>', '<|im_end|>', ']<]',
      '<|start|>assistant', '<|channel|>final<|message|>', '<|start|>ass',
    );
    const part = fc.oneof({ weight: 5, arbitrary: fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join('')) }, { weight: 1, arbitrary: fc.constant(null) });
    fc.assert(
      fc.property(fc.array(part, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 40 }), (parts, cuts) => {
        const whole = clean(parts);
        // The same text with every text part cut at the given points.
        let next = 0;
        const split: (string | null)[] = [];
        for (const p of parts) {
          if (p === null) {
            split.push(null);
            continue;
          }
          let rest = p;
          while (rest.length > 1 && next < cuts.length) {
            const at = 1 + ((cuts[next++] ?? 0) % (rest.length - 1));
            split.push(rest.slice(0, at));
            rest = rest.slice(at);
          }
          split.push(rest);
        }
        expect(clean(split)).toBe(whole);
        // And one character at a time.
        expect(clean(parts.flatMap((p) => (p === null ? [null] : Array.from(p))))).toBe(whole);
      }),
      { numRuns: 2000 },
    );
  });

  it('shows every character of a text without calls or markers, however it is split (property)', () => {
    const piece = fc.constantFrom(
      '<tools>', '</tools>', '```', '```json\n', 'Action:', 'functools', '<|x_y|>', '<', '|', '>', '/', 'x', ' ', '\n', '`', '[', ']', ',', 'function call', '**Tool Call:**', '<ifm|x>', '-> tool/function_call', '-', '*',
      '[1]', '[x](https://a.b)', ';', '```python\n', 'print(1)\n', '<answer>', '</answer>',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(clean([text])).toBe(text);
        expect(clean(pieces)).toBe(text);
        expect(clean(Array.from(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('shows every character of a text without calls between its first and last word, markers too, however it is split (property)', () => {
    const piece = fc.constantFrom(
      '<tool_call>', '</tool_call>', '<|end|>', '</think>', '[TOOL_CALLS]', '>>>all\n', '<|im_end|>', '</function>', '<|return|>', '<tools>', '```json\n',
      '`', '[', ']', ',', ';', ' ', '\n', 'x', '[1]', '[x](https://a.b)', '<', '>', '|',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = `Word ${pieces.join('')} word.`;
        expect(clean([text])).toBe(text);
        expect(clean(['Word ', ...pieces, ' word.'])).toBe(text);
        expect(clean(Array.from(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});
