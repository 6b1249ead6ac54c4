import { describe, expect, it } from 'vitest';
import { extractToolCalls } from './extract-tool-calls.ts';
import { streamInPieces } from '../test/helpers/stream-in-pieces.ts';
import { checked, incomplete } from '../test/helpers/checked-calls.ts';


const stream = streamInPieces;


const alarm = {
  name: 'set_alarm',
  inputSchema: {
    type: 'object' as const,
    properties: {
      time: { type: 'string' as const },
      minutes: { type: 'integer' as const },
      repeat: { type: 'boolean' as const },
      days: { type: 'array' as const, items: { type: 'string' as const } },
      options: { type: 'object' as const },
      ratio: { type: 'number' as const },
      label: { type: ['string', 'null'] as ('string' | 'null')[] },
    },
  },
};

describe('Qwen3-Coder / Qwen3.5 XML', () => {
  const qwen = (name: string, params: string) => `<tool_call>\n<function=${name}>\n${params}</function>\n</tool_call>`;
  const param = (key: string, value: string) => `<parameter=${key}>\n${value}\n</parameter>\n`;

  it('reads several calls with text before and after; values are text without a schema', () => {
    const text = `Let me check.\n${qwen('lookup_order', param('order_id', 'A-1029') + param('include_items', 'True'))}\n${qwen('get_time', '')}\nDone.`;
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029', include_items: 'True' } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it("converts values by the tool's schema: integers, booleans, arrays, objects, null", () => {
    const params =
      param('minutes', '45') +
      param('repeat', 'True') +
      param('days', "['mon', 'fri']") +
      param('options', '{"snooze": {"max": 3}}') +
      param('ratio', '2.5') +
      param('label', 'None') +
      param('time', '007');
    expect(checked(qwen('set_alarm', params), { tools: [alarm] })).toEqual([
      {
        name: 'set_alarm',
        arguments: { minutes: 45, repeat: true, days: ['mon', 'fri'], options: { snooze: { max: 3 } }, ratio: 2.5, label: null, time: '007' },
      },
    ]);
  });

  it('keeps code with </parameter>, quotes and newlines inside a value', () => {
    const code = 'if a < b:\n    print("</parameter> is a tag")\n    x = {"k": [1, 2]}';
    expect(checked(qwen('run_code', param('code', code) + param('lang', 'python')))).toEqual([
      { name: 'run_code', arguments: { code, lang: 'python' } },
    ]);
  });

  it('closes a missing </parameter> at the next parameter line', () => {
    expect(checked('<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>')).toEqual([
      { name: 'f', arguments: { a: '1', b: '2' } },
    ]);
  });

  it('reads a <function=…> block without the <tool_call> wrapper', () => {
    expect(checked('Sure.\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\nok')).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
    ]);
  });

  it('rejects an unrendered template name and names off the allow-list', () => {
    expect(checked(qwen('{{ name }}', param('a', '1')))).toEqual([]);
    expect(checked(qwen('rm_rf', param('a', '1')), { tools: ['search'] })).toEqual([]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n');
    incomplete('<function=f>\n<parameter=a>\n1');
  });
});

describe('Seed-OSS', () => {
  it('reads the XML body in <seed:tool_call>, Python reprs converted by schema', () => {
    const text =
      '<seed:think>I should set it.</seed:think>Setting it.<seed:tool_call>\n<function=set_alarm>\n<parameter=time>07:30</parameter>\n<parameter=days>[\'mon\', \'fri\']</parameter>\n</function>\n</seed:tool_call>';
    expect(checked(text, { tools: [alarm] })).toEqual([{ name: 'set_alarm', arguments: { time: '07:30', days: ['mon', 'fri'] } }]);
  });

  it('reports an unclosed block as incomplete', () => {
    incomplete('<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>');
  });
});

describe('MiniMax-M2', () => {
  it('reads several invokes in one block, trimming values, single-quoted names too', () => {
    const text =
      'Converting.\n<minimax:tool_call>\n<invoke name="convert_currency">\n<parameter name="amount">12.5</parameter>\n<parameter name="to"> EUR </parameter>\n</invoke>\n<invoke name=\'get_time\'>\n</invoke>\n</minimax:tool_call>\nDone';
    expect(checked(text)).toEqual([
      { name: 'convert_currency', arguments: { amount: '12.5', to: 'EUR' } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('converts by schema', () => {
    const text = '<minimax:tool_call><invoke name="set_alarm"><parameter name="minutes">45</parameter><parameter name="repeat">false</parameter></invoke></minimax:tool_call>';
    expect(checked(text, { tools: [alarm] })).toEqual([{ name: 'set_alarm', arguments: { minutes: 45, repeat: false } }]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1');
  });
});

describe('GLM-4.5 / 4.6 / 4.7', () => {
  it('reads arg_key/arg_value pairs (4.6, newlines) and several calls', () => {
    const text =
      '<think>the user wants an alarm</think>\n<tool_call>set_alarm\n<arg_key>time</arg_key>\n<arg_value>06:45</arg_value>\n<arg_key>repeat</arg_key>\n<arg_value>false</arg_value>\n</tool_call>\n<tool_call>get_time\n</tool_call>';
    expect(checked(text)).toEqual([
      { name: 'set_alarm', arguments: { time: '06:45', repeat: 'false' } },
      { name: 'get_time', arguments: {} },
    ]);
    expect(checked(text, { tools: [alarm, 'get_time'] })).toEqual([
      { name: 'set_alarm', arguments: { time: '06:45', repeat: false } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('reads 4.7 (no newline after the name) and zero-argument calls', () => {
    expect(checked('<tool_call>lookup<arg_key>q</arg_key><arg_value>a <b> c</arg_value></tool_call><tool_call>get_time</tool_call>')).toEqual([
      { name: 'lookup', arguments: { q: 'a <b> c' } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('keeps JSON values verbatim as strings without a schema, parsed with one', () => {
    const text = '<tool_call>set_alarm<arg_key>options</arg_key><arg_value>{"a": [1, {"b": "}"}]}</arg_value></tool_call>';
    expect(checked(text)).toEqual([{ name: 'set_alarm', arguments: { options: '{"a": [1, {"b": "}"}]}' } }]);
    expect(checked(text, { tools: [alarm] })).toEqual([{ name: 'set_alarm', arguments: { options: { a: [1, { b: '}' }] } } }]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<tool_call>set_alarm\n<arg_key>time</arg_key>\n<arg_value>06:4');
  });

  it('reads the name before a stray </arg_value> ("GLM 5.2" deployments)', () => {
    expect(checked('<tool_call>lookup</arg_value><arg_key>q</arg_key><arg_value>paris</arg_value></tool_call>')).toEqual([{ name: 'lookup', arguments: { q: 'paris' } }]);
    expect(checked('<tool_call>get_time</arg_value></tool_call>', { tools: ['get_time'] })).toEqual([{ name: 'get_time', arguments: {} }]);
    expect(checked('<tool_call>get_time</arg_value></tool_call>', { tools: ['other'] })).toEqual([]);
  });
});

describe('DeepSeek R1 / V3 / V3.1', () => {
  const FW = '\uff5c';
  const t = (words: string) => `<${FW}${words.replaceAll(' ', '\u2581')}${FW}>`;

  it('reads V3.1 calls (NAME<｜tool▁sep｜>JSON), several in a block', () => {
    const text = `</think>Checking.${t('tool calls begin')}${t('tool call begin')}lookup_order${t('tool sep')}{"order_id": "A-1029", "nested": {"x": [1, "}"]}}${t('tool call end')}${t('tool call begin')}get_time${t('tool sep')}{}${t('tool call end')}${t('tool calls end')}${t('end of sentence')}`;
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029', nested: { x: [1, '}'] } } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('reads R1/V3 calls (function<｜tool▁sep｜>NAME then a json fence)', () => {
    const text = `${t('tool calls begin')}${t('tool call begin')}function${t('tool sep')}get_weather\n\`\`\`json\n{"city": "Paris ${t('tool call end')}"}\n\`\`\`${t('tool call end')}\n${t('tool call begin')}function${t('tool sep')}get_time\n\`\`\`json\n{}\n\`\`\`${t('tool call end')}${t('tool calls end')}`;
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: `Paris ${t('tool call end')}` } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('accepts the misspelled openers of distilled models', () => {
    const text = `<${FW}tool_calls_begin${FW}><${FW}tool_call_begin${FW}>f<${FW}tool_sep${FW}>{"a": 1}<${FW}tool_call_end${FW}><${FW}tool_calls_end${FW}>`;
    expect(checked(text)).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('does not read tool outputs as calls, and reports truncation as incomplete', () => {
    expect(checked(`${t('tool output begin')}{"name": "x"}${t('tool output end')}`)).toEqual([]);
    incomplete(`${t('tool calls begin')}${t('tool call begin')}f${t('tool sep')}{"a": 1}${t('tool call end')}`);
  });
});

describe('DeepSeek V3.2 DSML', () => {
  const D = '\uff5cDSML\uff5c';
  it('reads invokes with string="true" (verbatim) and string="false" (JSON) parameters', () => {
    const text = `Sure.\n<${D}function_calls>\n<${D}invoke name="set_alarm">\n<${D}parameter name="label" string="true">gym "A" & </${D}invoke></${D}parameter>\n<${D}parameter name="minutes" string="false">45</${D}parameter>\n<${D}parameter name="days" string="false">["mon", "thu"]</${D}parameter>\n</${D}invoke>\n<${D}invoke name="get_time">\n</${D}invoke>\n</${D}function_calls>`;
    expect(checked(text)).toEqual([
      { name: 'set_alarm', arguments: { label: `gym "A" & </${D}invoke>`, minutes: 45, days: ['mon', 'thu'] } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('reads the V4 wrapper and unwraps a lone arguments parameter', () => {
    const text = `<${D}tool_calls><${D}invoke name="f"><${D}parameter name="arguments" string="false">{"a": 1}</${D}parameter></${D}invoke></${D}tool_calls>`;
    expect(checked(text)).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('unwraps a wrapper written as JSON text only where the schema has no property of its name (vLLM cases)', () => {
    const wrapped = (key: string) => `<${D}tool_calls><${D}invoke name="f"><${D}parameter name="${key}" string="true">{"city": "Oslo"}</${D}parameter></${D}invoke></${D}tool_calls>`;
    const city = { name: 'f', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } } } };
    const input = { name: 'f', inputSchema: { type: 'object' as const, properties: { input: { type: 'string' as const } } } };
    expect(checked(wrapped('input'), { tools: [city] })).toEqual([{ name: 'f', arguments: { city: 'Oslo' } }]);
    expect(checked(wrapped('input'), { tools: [input] })).toEqual([{ name: 'f', arguments: { input: '{"city": "Oslo"}' } }]);
    expect(checked(wrapped('arguments'))).toEqual([{ name: 'f', arguments: { arguments: '{"city": "Oslo"}' } }]);
  });

  it('keeps a string="false" value as text where its JSON type is not one the schema allows (vLLM cases)', () => {
    const text = `<${D}function_calls><${D}invoke name="f"><${D}parameter name="text" string="false">null</${D}parameter><${D}parameter name="n" string="false">null</${D}parameter><${D}parameter name="k" string="false">7</${D}parameter></${D}invoke></${D}function_calls>`;
    const schema = { type: 'object' as const, properties: { text: { type: 'string' as const }, n: { type: ['integer', 'null'] as ('integer' | 'null')[] }, k: { type: 'integer' as const } } };
    expect(checked(text, { tools: [{ name: 'f', inputSchema: schema }] })).toEqual([{ name: 'f', arguments: { text: 'null', n: null, k: 7 } }]);
    expect(checked(text)).toEqual([{ name: 'f', arguments: { text: null, n: null, k: 7 } }]);
  });

  it('reports truncation as incomplete', () => {
    incomplete(`<${D}function_calls>\n<${D}invoke name="f">\n`);
  });
});

describe('Kimi K2', () => {
  it('reads a section with several calls and keeps the model ids', () => {
    const text =
      'I will check both.<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup_order:0<|tool_call_argument_begin|>{"order_id": "A-1029", "note": "<|tool_call_end|>"}<|tool_call_end|><|tool_call_begin|>functions.set_alarm:1<|tool_call_argument_begin|>{"time": "07:00"}<|tool_call_end|><|tool_calls_section_end|>';
    const found = extractToolCalls(text);
    expect(found.map((c) => c.id)).toEqual(['functions.lookup_order:0', 'functions.set_alarm:1']);
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029', note: '<|tool_call_end|>' } },
      { name: 'set_alarm', arguments: { time: '07:00' } },
    ]);
  });

  it('reads the singular section token, bare NAME:IDX and dotted names', () => {
    const text = '<|tool_call_section_begin|><|tool_call_begin|>get_time:3<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>functions.ns.tool:4<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_call_section_end|>';
    expect(checked(text)).toEqual([
      { name: 'get_time', arguments: {} },
      { name: 'ns.tool', arguments: { a: 1 } },
    ]);
  });

  it('reads a section opened inside reasoning (K2.5)', () => {
    const text = '<think>I need the order<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>';
    expect(checked(text)).toEqual([{ name: 'f', arguments: {} }]);
  });

  it('takes reasoning up again after a section written inside it (llama.cpp cases)', () => {
    const text = '<think>Need it<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|> and more</think>Done.';
    expect(checked(text)).toEqual([{ name: 'f', arguments: {} }]);
    for (const size of [1, 4, text.length]) {
      const events = stream(text, size);
      expect(events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('')).toBe('Need it and more');
      expect(events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe('Done.');
    }
  });

  it('reads calls written without their section or end tokens, also inside reasoning (llama.cpp cases)', () => {
    const text = 'Sure.<|tool_call_begin|>functions.run:0<|tool_call_argument_begin|> {"cmd": "ls", "note": "<|tool_call_end|>"}<|tool_call_end|>';
    expect(checked(text)).toEqual([{ name: 'run', arguments: { cmd: 'ls', note: '<|tool_call_end|>' } }]);
    expect(extractToolCalls(text)[0]?.id).toBe('functions.run:0');
    const inThought = '<think>Two calls<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}<|tool_call_begin|>b:1<|tool_call_argument_begin|>{"x": 1}';
    expect(checked(inThought)).toEqual([
      { name: 'a', arguments: {} },
      { name: 'b', arguments: { x: 1 } },
    ]);
    const events = stream(inThought, 3);
    expect(events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('')).toBe('Two calls');
    // Not followed by arguments, or not listed: text.
    expect(checked('<|tool_call_begin|>functions.run:0 then prose {"a": 1}')).toEqual([]);
    expect(checked('<|tool_call_begin|>functions.run:0<|tool_call_argument_begin|>{"a": 1}', { tools: ['other'] })).toEqual([]);
  });

  it('reports truncation as incomplete', () => {
    incomplete('<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}');
    incomplete('<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": ');
  });
});

describe('Gemma 4', () => {
  it('reads calls with <|"|> strings, numbers, booleans, lists and nested objects', () => {
    const text =
      'Setting it.<|tool_call>call:set_alarm{days:[<|"|>mon<|"|>,<|"|>thu<|"|>],label:<|"|>gym, {a}: "b"<|"|>,minutes:45,options:{loud:true,ratio:-1.5},repeat:false}<tool_call|><|tool_call>call:get_time{}<tool_call|>Done.';
    expect(checked(text)).toEqual([
      {
        name: 'set_alarm',
        arguments: { days: ['mon', 'thu'], label: 'gym, {a}: "b"', minutes: 45, options: { loud: true, ratio: -1.5 }, repeat: false },
      },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('accepts <turn|> as the end, reads None as null, and does not read declarations', () => {
    expect(checked('<|tool_call>call:f{a:None}<turn|>')).toEqual([{ name: 'f', arguments: { a: null } }]);
    expect(checked('<|tool>declaration:f{description:<|"|>x<|"|>}<tool|>')).toEqual([]);
  });

  it('does not run a call name into the thought opener (callsInReasoning; the events give back the text)', () => {
    expect(checked('<|channel>thoughtf(a=1)<channel|>', { callsInReasoning: true })).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('reads a call with a stray colon before `call:` (vLLM test_colon_prefixed_tool_call)', () => {
    expect(checked('<|tool_call>:call:bash{command:<|"|>pytest<|"|>}<tool_call|>')).toEqual([{ name: 'bash', arguments: { command: 'pytest' } }]);
  });

  it('reports truncation as incomplete', () => {
    incomplete('<|tool_call>call:f{a:<|"|>unfinished');
  });
});

describe('FunctionGemma', () => {
  it('reads calls with <escape> strings, numbers, lists and nested objects, with text around them', () => {
    const text =
      'Sure.<start_function_call>call:set_alarm{days:[<escape>mon<escape>,<escape>thu<escape>],label:<escape>gym, {a}: "b"<escape>,minutes:45,options:{loud:true}}<end_function_call>\n<start_function_call>call:get_time{}<end_function_call> Done.';
    expect(checked(text)).toEqual([
      { name: 'set_alarm', arguments: { days: ['mon', 'thu'], label: 'gym, {a}: "b"', minutes: 45, options: { loud: true } } },
      { name: 'get_time', arguments: {} },
    ]);
    expect(checked(text, { format: 'functiongemma' })).toHaveLength(2);
    expect(checked(text, { format: 'gemma4' })).toEqual([]);
  });

  it('reads a key that follows a value without a comma, and types escaped text only by the schema', () => {
    const text = '<start_function_call>call:f{city:<escape>NYC<escape>count:<escape>3<escape>}<end_function_call>';
    expect(checked(text)).toEqual([{ name: 'f', arguments: { city: 'NYC', count: '3' } }]);
    const typed = { name: 'f', inputSchema: { type: 'object' as const, properties: { count: { type: 'integer' as const } } } };
    expect(checked(text, { tools: [typed] })).toEqual([{ name: 'f', arguments: { city: 'NYC', count: 3 } }]);
  });

  it('reports truncation as incomplete', () => {
    incomplete('<start_function_call>call:f{a:<escape>unfinished');
  });
});

describe('gpt-oss harmony', () => {
  it('reads a commentary call; analysis is reasoning, not calls', () => {
    const text =
      '<|channel|>analysis<|message|>Need the order status. lookup_order(order_id="draft")<|end|><|start|>assistant<|channel|>commentary to=functions.lookup_order <|constrain|>json<|message|>{"order_id":"A-1029","q":"<|call|>"}<|call|>';
    expect(checked(text)).toEqual([{ name: 'lookup_order', arguments: { order_id: 'A-1029', q: '<|call|>' } }]);
    const events = stream(text, 4);
    const reasoning = events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('');
    expect(reasoning).toBe('Need the order status. lookup_order(order_id="draft")');
  });

  it('reads the recipient in the role part, and a final answer as text', () => {
    const call = '<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>';
    expect(checked(call)).toEqual([{ name: 'get_time', arguments: {} }]);
    const events = stream('<|channel|>final<|message|>It is 7.<|return|>', 3);
    expect(events.filter((e) => e.type === 'text').map((e) => ('text' in e ? e.text : '')).join('')).toContain('It is 7.');
  });

  it('ends an analysis message left without <|end|> where the next header begins (llama.cpp test_gpt_oss_harmony_format)', () => {
    const text = '<|channel|>analysis<|message|>Need the time.<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>';
    expect(checked(text)).toEqual([{ name: 'get_time', arguments: {} }]);
    const events = stream('<|channel|>analysis<|message|>Hm.<|channel|>final<|message|>7.', 2);
    expect(events.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('')).toBe('Hm.');
    expect(events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe('<|channel|>final<|message|>7.');
  });

  it('reads a first header whose role part (` to=functions.NAME`) came before `<|channel|>`, on any channel', () => {
    // The prompt ends with `<|start|>assistant`: the model starts with the rest of the role part.
    expect(checked(' to=functions.get_time<|channel|>analysis<|message|>{"tz": "UTC"}')).toEqual([{ name: 'get_time', arguments: { tz: 'UTC' } }]);
    expect(checked('to=functions.get_time <|channel|>commentary <|constrain|>json<|message|>{}', { tools: ['get_time'] })).toEqual([{ name: 'get_time', arguments: {} }]);
    // Only the very start of the text is a role part: elsewhere the channel decides.
    expect(checked('Hi to=functions.get_time<|channel|>analysis<|message|>{"tz": "UTC"}<|end|>')).toEqual([]);
    expect(checked(' to=functions.get_time<|channel|>analysis<|message|>{}', { tools: ['other'] })).toEqual([]);
  });

  it('does not read built-in tools or tool messages as calls', () => {
    expect(checked('<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"query":"x"}<|call|>')).toEqual([]);
    expect(checked('<|start|>functions.get_time to=assistant<|channel|>commentary<|message|>{"time":"7"}<|end|>')).toEqual([]);
  });

  it('reports a truncated call as incomplete', () => {
    incomplete('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":');
  });
});

describe('Mistral [TOOL_CALLS]NAME[ARGS]', () => {
  it('reads several calls, with and without [CALL_ID], keeping the model id', () => {
    const text = 'Sure.[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1029", "x": "[TOOL_CALLS]y[ARGS]{}"}[TOOL_CALLS]set_alarm[CALL_ID]a1B2c3D4e[ARGS]{"time": "07:00"}';
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029', x: '[TOOL_CALLS]y[ARGS]{}' } },
      { name: 'set_alarm', arguments: { time: '07:00' } },
    ]);
    expect(extractToolCalls(text)[1]?.id).toBe('a1B2c3D4e');
  });

  it('still reads the list form and the stripped-token form', () => {
    expect(checked('[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5}}]')).toEqual([{ name: 'add', arguments: { a: 3.5 } }]);
    expect(checked('[TOOL_CALLS]add{"a": 3.5}')).toEqual([{ name: 'add', arguments: { a: 3.5 } }]);
  });

  it('reports truncation as incomplete', () => {
    incomplete('[TOOL_CALLS]f[ARGS]{"a": [1, 2');
  });
});

describe('Functionary v3.1 / v3.2', () => {
  it('reads v3.1 <function=NAME>{json}</function>, several in a row', () => {
    const text = 'Checking.<function=lookup_order>{"order_id": "</function>"}</function>\n<function=get_time>{}</function>';
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: '</function>' } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('reads <function name="NAME">{json}</function> (Hermes 2 Pro writes the tag this way)', () => {
    const text = 'Sure.\n<function name="lookup_order">\n{"order_id": "A-1029"}\n</function>\n<function name="get_time">{}</function>';
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029' } },
      { name: 'get_time', arguments: {} },
    ]);
    expect(checked(text, { format: 'functionary', tools: ['get_time'] })).toEqual([{ name: 'get_time', arguments: {} }]);
    // Another body (MiniCPM's `<param …>`: the minicpm5 format's), prose about the tag, a cut header: text.
    expect(checked('<function name="python"><param name="code">print(1)</param></function>', { format: 'functionary', tools: ['python'] })).toEqual([]);
    // MiniCPM5's is read only when asked for.
    expect(checked('<function name="python"><param name="code">print(1)</param></function>', { tools: ['python'] })).toEqual([]);
    expect(checked('<function name="python"><param name="code">print(1)</param></function>', { tools: ['python'], formats: ['functionary', 'minicpm5'] })).toEqual([{ name: 'python', arguments: { code: 'print(1)' } }]);
    expect(checked('Use <function name="x"> tags, or <function name="a b">{}</function>.')).toEqual([]);
    incomplete('<function name="lookup_order">{"order_id": "A-10');
  });

  it("reads <function name='NAME'> and a space before the tag's >", () => {
    const text = `<function name='lookup_order'>{"order_id": "A-1029"}</function>\n<function name="get_time" >{}</function> <function name='set_alarm' \n>\n{"time": "07:00"}</function>`;
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029' } },
      { name: 'get_time', arguments: {} },
      { name: 'set_alarm', arguments: { time: '07:00' } },
    ]);
    // Quotes that do not match, no quote, a cut header: text or incomplete.
    expect(checked(`<function name='a">{}</function> <function name=a>{}</function> <function name="b' >{}</function>`)).toEqual([]);
    incomplete(`<function name='lookup_order' >{"order_id": "A-10`);
  });

  it('reads v3.2 >>>NAME then JSON; >>>all is text', () => {
    const text = 'all\nOne moment.>>>lookup_order\n{"order_id": "A-1029", "n": {"k": ">>>x"}}>>>get_time\n{}';
    expect(checked(text)).toEqual([
      { name: 'lookup_order', arguments: { order_id: 'A-1029', n: { k: '>>>x' } } },
      { name: 'get_time', arguments: {} },
    ]);
    expect(checked('>>>all\nJust text, f{"a": 1}.')).toEqual([]);
  });

  // A whole text finds `>>>NAME` from the `{` after it; a stream finds it at its `>`: both
  // must agree where a token or an earlier span ends in `>` and where the name cannot be read.
  it('reads >>>NAME the same way in batch and streaming next to other tokens', () => {
    const g = [{ name: 'g', arguments: { a: 1 } }];
    expect(checked('>>>>g\n{"a": 1}')).toEqual(g);
    expect(checked('x>>>g \n\t {"a": 1}')).toEqual(g);
    expect(checked('x >>> g {"a": 1}')).toEqual([]);
    expect(checked('>>>g{"a": 1}')).toEqual(g);
    expect(checked('<tool_call>>>g\n{"a": 1}')).toEqual([]);
    expect(checked('<think>x</think>>>g\n{"a": 1}')).toEqual([]);
    expect(checked('f(a=1)>>>g\n{"a": 1}')).toEqual([{ name: 'f', arguments: { a: 1 } }, ...g]);
    expect(checked('>>>all\n{"name": "g", "arguments": {"a": 1}}')).toEqual(g);
    expect(checked('>>>bad name\n{"name": "g", "arguments": {"a": 1}}')).toEqual(g);
    expect(checked('>>>1x\n{"a": 1}>>>g\n{"a": 1}')).toEqual(g);
    expect(checked(`>>>${'n'.repeat(128)}\n{"a": 1}`)).toHaveLength(1);
    expect(checked(`>>>${'n'.repeat(129)}\n{"a": 1}`)).toEqual([]);
    expect(checked(`>>>${'n'.repeat(140)}\n{"a": 1}`)).toEqual([]);
    expect(checked('>>>g\n{"a": 1}', { tools: ['h'] })).toEqual([]);
    expect(checked('>>>g\n{"a": 1} and {"name": "g", "arguments": {}}', { format: 'functionary' })).toEqual(g);
    expect(checked('>>>g\n{"a": 1}', { formats: ['call', 'json'] })).toEqual([]);
  });

  it('reports truncation as incomplete', () => {
    incomplete('<function=f>{"a": "b');
    incomplete('>>>f\n{"a": ');
  });
});

describe('Apertus', () => {
  it('reads name-as-key calls between the prefix and suffix tokens', () => {
    const text = '<|tools_prefix|>[{"set_alarm": {"time": "07:00"}}, {"get_time": {}}]<|tools_suffix|>Done.';
    expect(checked(text)).toEqual([
      { name: 'set_alarm', arguments: { time: '07:00' } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('reports truncation as incomplete', () => {
    incomplete('<|tools_prefix|>[{"set_alarm": {"time": "07:00"}}');
    incomplete('<|tools_prefix|>[{"set_alarm": {"time": "07:00"}}] and then');
  });

  it('reads a complete list whose suffix never came (a server that stops on the token drops it)', () => {
    const text = 'Checking.<|tools_prefix|>[{"set_alarm": {"time": "07:00"}}, {"get_time": {}}]\n';
    expect(checked(text)).toEqual([
      { name: 'set_alarm', arguments: { time: '07:00' } },
      { name: 'get_time', arguments: {} },
    ]);
    expect(checked(text, { tools: ['get_time'] })).toEqual([{ name: 'get_time', arguments: {} }]);
    expect(stream(text, 1).filter((e) => e.type === 'incomplete')).toEqual([]);
  });
});

describe('reasoning blocks', () => {
  it('does not read calls inside <think> by default; the reasoning is its own event', () => {
    const text = '<think>Maybe search(q="draft") or <tool_call>{"name": "search", "arguments": {"q": "d"}}</tool_call></think>search(q="real")';
    expect(checked(text)).toEqual([{ name: 'search', arguments: { q: 'real' } }]);
    const events = stream(text, 1);
    expect(events[0]).toEqual({ type: 'reasoning-start', text: '<think>' });
    expect(events.filter((e) => e.type === 'reasoning-end')).toEqual([{ type: 'reasoning-end', text: '</think>' }]);
  });

  it('reads calls inside reasoning when callsInReasoning is set', () => {
    const text = '<think>search(q="inside")</think>search(q="after")';
    expect(checked(text, { callsInReasoning: true }).map((c) => c.arguments.q)).toEqual(['inside', 'after']);
  });

  it('starts inside reasoning when the prompt opened it', () => {
    expect(checked('draft f(a=1)</think>f(a=2)', { startInReasoning: true })).toEqual([{ name: 'f', arguments: { a: 2 } }]);
  });

  it('knows the reasoning delimiters of each family', () => {
    for (const [open, close] of [
      ['<seed:think>', '</seed:think>'],
      ['[THINK]', '[/THINK]'],
      ['<|START_THINKING|>', '<|END_THINKING|>'],
      ['<|inner_prefix|>', '<|inner_suffix|>'],
      ['<|channel>thought\n', '<channel|>'],
    ] as const) {
      expect(checked(`${open}f(a=1)${close}g(b=2)`)).toEqual([{ name: 'g', arguments: { b: 2 } }]);
    }
  });

  it('treats an unclosed reasoning block as reasoning to the end', () => {
    expect(checked('<think>f(a=1) and more')).toEqual([]);
  });
});

describe('format option', () => {
  const text = '<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call> g(b=2) [TOOL_CALLS]h[ARGS]{"c": 3}';

  it('looks for one format only when forced', () => {
    expect(checked(text, { format: 'qwen3-xml' }).map((c) => c.name)).toEqual(['f']);
    expect(checked(text, { format: 'call' }).map((c) => c.name)).toEqual(['g']);
    expect(checked(text, { format: 'mistral' }).map((c) => c.name)).toEqual(['h']);
    expect(checked(text).map((c) => c.name)).toEqual(['f', 'g', 'h']);
  });
});

describe('auto-detection on mixed text', () => {
  it('finds no calls in prose that mentions the formats', () => {
    const prose = [
      'Use the <tool_call> tag, then <function=NAME> and </function>; GLM writes <arg_key>.',
      'In HTML, <b>bold</b> and a <|channel|> token are not calls; nor are >>> prompts or [TOOL_CALLS] alone.',
      'Compare a < b and b > c, x >>> 2, arrays [1, 2] and {"name": "Bob"}.',
      '<|tool_call>call: nothing here',
    ].join('\n');
    expect(checked(prose, { tools: ['search'] })).toEqual([]);
  });

  it('does not take prose about tags for a GLM call, and releases the text as it streams', () => {
    const text = 'Wrap it in <tool_call> tags like this, then a <tool_call> ok';
    expect(checked(text)).toEqual([]);
    const events = stream(text, 1);
    expect(events.some((e) => e.type === 'incomplete')).toBe(false);
  });

  it('reads only the one format in a mixed answer', () => {
    const text = 'Here is how it works: the model says <tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call> and a < b > c >>> d.';
    expect(checked(text, { tools: ['search'] })).toEqual([{ name: 'search', arguments: { q: 'x' } }]);
  });
});

describe('adversarial native input (speed is measured in bench/, these only check the answers)', () => {
  it('survives a megabyte of unclosed openers of every format', () => {
    for (const opener of ['<parameter=', '<tool_call>\n<function=f>\n<parameter=a>', '<|channel|>', '<|tool_call>call:f{a:', '[TOOL_CALLS]f[ARGS]{"a": "', '>>>f\n{', '<think>', '<\uff5ctool\u2581calls\u2581begin\uff5c>']) {
      const text = opener.repeat(Math.ceil(1_000_000 / opener.length));
      expect(extractToolCalls(text)).toEqual([]);
    }
  });

  it('reads a closed block holding a megabyte of <parameter= text', () => {
    const value = 'x <parameter='.repeat(100_000);
    const text = `<tool_call>\n<function=f>\n<parameter=a>\n${value}\n</parameter>\n</function>\n</tool_call>`;
    expect(extractToolCalls(text).map((c) => c.arguments.a)).toEqual([value]);
  });
});

describe('hostile arguments in native blocks', () => {
  it('keeps a `__proto__` argument as an own key, never as the arguments object prototype', () => {
    const dsml =
      '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="search"><\uff5cDSML\uff5cparameter name="__proto__" string="false">{"polluted":1}</\uff5cDSML\uff5cparameter></\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>';
    const qwen = '<tool_call>\n<function=search>\n<parameter=__proto__>\n{"polluted":1}\n</parameter>\n</function>\n</tool_call>';
    const glm = '<tool_call>search<arg_key>__proto__</arg_key><arg_value>x</arg_value></tool_call>';
    for (const text of [dsml, qwen, glm]) {
      const [call] = checked(text);
      const args = call?.arguments ?? {};
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
      expect(Object.keys(args)).toEqual(['__proto__']);
      expect((args as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });

  it('drops a call nested too deep to serialise, in batch and streaming alike (no stack overflow)', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const kimi = `<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{"a":${deep}}<|tool_call_end|><|tool_calls_section_end|> after`;
    const apertus = `<|tools_prefix|>[{"a": {"x":${deep}}}]<|tools_suffix|> after`;
    const schema = { tools: [{ name: 'a', inputSchema: { type: 'object' as const, properties: { a: { type: 'array' as const }, x: { type: 'array' as const } } } }] };
    for (const text of [kimi, apertus]) {
      expect(checked(text)).toEqual([]);
      expect(checked(text, schema)).toEqual([]);
    }
    // A call nested as deep as a real tool's arguments might is read.
    expect(checked(`<|tools_prefix|>[{"a": {"x":${'['.repeat(100)}${']'.repeat(100)}}}]<|tools_suffix|>`)).toHaveLength(1);
  });
});
