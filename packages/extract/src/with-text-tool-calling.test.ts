import { collectStream, UnknownToolError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, FunctionToolSpec, Message, ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { withTextToolCalling } from './with-text-tool-calling.ts';

/** A text-only model that answers with the given texts in turn and records its requests. */
function fakeTextModel(answers: readonly string[]): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const next = (request: ChatRequest): string => {
    requests.push(request);
    const answer = answers[requests.length - 1];
    if (answer === undefined) throw new Error('the fake model ran out of answers');
    return answer;
  };
  return {
    provider: 'fake',
    modelId: 'fake-1b',
    requests,
    generate(request) {
      const text = next(request);
      const response: ChatResponse = {
        text,
        toolCalls: [],
        toolResults: [],
        finishReason: 'stop',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        warnings: [],
        message: { role: 'assistant', content: text },
      };
      return Promise.resolve(response);
    },
    async *stream(request) {
      const text = next(request);
      // Three characters at a time: splits names, strings and escapes.
      for (let i = 0; i < text.length; i += 3) {
        await Promise.resolve();
        yield { type: 'text-delta', delta: text.slice(i, i + 3) } satisfies ChatStreamEvent;
      }
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } };
    },
  };
}

const getWeather: FunctionToolSpec = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
};
const getTime: FunctionToolSpec = {
  type: 'function',
  name: 'get_time',
  inputSchema: { type: 'object', properties: { tz: { type: 'string' } } },
};

const ids = { id: (name: string, index: number) => `${name}_${index}` };
const ask: Message[] = [{ role: 'user', content: 'Weather in Paris?' }];

async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('withTextToolCalling: generate', () => {
  it('puts the tools into the system prompt, sends no native tools, and parses the call', async () => {
    const inner = fakeTextModel(['Let me check.\nget_weather(city="Paris", days="2")']);
    const model = withTextToolCalling(inner, ids);
    const response = await model.generate({
      messages: [{ role: 'system', content: 'Be brief.' }, ...ask],
      tools: [getWeather],
    });
    const sent = inner.requests[0];
    expect(sent?.tools).toBeUndefined();
    expect(sent?.toolChoice).toBeUndefined();
    expect(sent?.messages[0]?.role).toBe('system');
    expect(sent?.messages[0]?.content).toMatch(/^Be brief\.\n\nYou can call these tools:\n- get_weather\(city: string, days\?: integer\)/);
    expect(response.toolCalls).toEqual([{ id: 'get_weather_0', name: 'get_weather', arguments: { city: 'Paris', days: 2 } }]);
    expect(response.text).toBe('Let me check.');
    expect(response.finishReason).toBe('tool-calls');
    expect(response.message).toEqual({ role: 'assistant', content: 'Let me check.', toolCalls: response.toolCalls });
  });

  it('adds a system message when the conversation has none', async () => {
    const inner = fakeTextModel(['Sunny.']);
    await withTextToolCalling(inner).generate({ messages: ask, tools: [getWeather] });
    expect(inner.requests[0]?.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('turns earlier tool calls and tool results into text turns', async () => {
    const inner = fakeTextModel(['It is 21°C in Paris.']);
    await withTextToolCalling(inner).generate({
      messages: [
        ...ask,
        { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] },
        { role: 'tool', toolCallId: 'c1', content: '21°C' },
        { role: 'tool', toolCallId: 'c2', toolName: 'get_time', content: '12:00' },
      ],
      tools: [getWeather],
    });
    const messages = inner.requests[0]?.messages ?? [];
    expect(messages.slice(1)).toEqual([
      ask[0],
      { role: 'assistant', content: 'Checking.\nget_weather(city="Paris")' },
      { role: 'user', content: 'Result of get_weather (call c1):\n21°C\n\nResult of get_time (call c2):\n12:00' },
    ]);
  });

  it("offers no tools and parses nothing for toolChoice 'none'", async () => {
    const inner = fakeTextModel(['get_weather(city="Paris")']);
    const response = await withTextToolCalling(inner).generate({ messages: ask, tools: [getWeather], toolChoice: 'none' });
    expect(inner.requests[0]?.messages).toEqual(ask);
    expect(response.toolCalls).toEqual([]);
    expect(response.text).toBe('get_weather(city="Paris")');
  });

  it("retries once with a corrective instruction when 'required' gets no call", async () => {
    const inner = fakeTextModel(['It is probably sunny.', 'get_weather(city="Paris")']);
    const response = await withTextToolCalling(inner, ids).generate({ messages: ask, tools: [getWeather], toolChoice: 'required' });
    expect(inner.requests[0]?.messages[0]?.content).toContain('You must call at least one of these tools');
    const retry = inner.requests[1]?.messages ?? [];
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: 'It is probably sunny.' });
    expect(retry.at(-1)?.content).toMatch(/^You did not call a tool/);
    expect(response.toolCalls.map((c) => c.name)).toEqual(['get_weather']);
    expect(response.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(response.warnings).toEqual([]);
  });

  it('warns when the corrective retry gets no call either', async () => {
    const inner = fakeTextModel(['No.', 'Still no.']);
    const response = await withTextToolCalling(inner).generate({ messages: ask, tools: [getWeather], toolChoice: 'required' });
    expect(inner.requests).toHaveLength(2);
    expect(response.toolCalls).toEqual([]);
    expect(response.text).toBe('No.');
    expect(response.warnings).toEqual([{ type: 'other', message: expect.stringMatching(/without a tool call/) as string }]);
  });

  it('offers only the named tool and accepts only calls to it', async () => {
    const inner = fakeTextModel(['get_weather(city="Paris")', 'get_time(tz="UTC")']);
    const response = await withTextToolCalling(inner, ids).generate({
      messages: ask,
      tools: [getWeather, getTime],
      toolChoice: { type: 'tool', name: 'get_time' },
    });
    const prompt = inner.requests[0]?.messages[0]?.content as string;
    expect(prompt).toContain('- get_time(');
    expect(prompt).not.toContain('get_weather');
    expect(prompt).toContain('You must call the tool get_time');
    expect(inner.requests[1]?.messages.at(-1)?.content).toMatch(/^You did not call get_time/);
    expect(response.toolCalls).toEqual([{ id: 'get_time_0', name: 'get_time', arguments: { tz: 'UTC' } }]);
  });

  it('rejects a named tool that is not among the tools before calling the model', async () => {
    const inner = fakeTextModel(['get_weather(city="Paris")']);
    const model = withTextToolCalling(inner, ids);
    const request: ChatRequest = { messages: ask, tools: [getWeather], toolChoice: { type: 'tool', name: 'get_time' } };
    const error: unknown = await model.generate(request).catch((e: unknown) => e);
    expect(UnknownToolError.isInstance(error)).toBe(true);
    expect((error as UnknownToolError).availableTools).toEqual(['get_weather']);
    await expect(collect(model.stream(request))).rejects.toThrow('Unknown tool "get_time"');
    expect(inner.requests).toHaveLength(0);
  });

  it('keeps the first call only when parallelToolCalls is false, with a warning', async () => {
    const inner = fakeTextModel(['get_weather(city="Paris")\nget_time(tz="UTC")']);
    const response = await withTextToolCalling(inner).generate({ messages: ask, tools: [getWeather, getTime], parallelToolCalls: false });
    expect(inner.requests[0]?.messages[0]?.content).toContain('Call at most one tool per answer');
    expect(response.toolCalls.map((c) => c.name)).toEqual(['get_weather']);
    expect(response.warnings).toEqual([expect.objectContaining({ type: 'unsupported-setting', setting: 'parallelToolCalls' })]);
  });

  it('teaches and parses the <tool_call> JSON format', async () => {
    const inner = fakeTextModel(['<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>']);
    const response = await withTextToolCalling(inner, { format: 'json-tag' }).generate({ messages: ask, tools: [getWeather] });
    expect(inner.requests[0]?.messages[0]?.content).toContain('<tool_call>{"name": "get_weather", "arguments": {"city": "..."}}</tool_call>');
    expect(response.toolCalls.map((c) => c.arguments)).toEqual([{ city: 'Oslo' }]);
  });

  it('takes call markers, list brackets and leaked end tokens out of the text', async () => {
    const inner = fakeTextModel([
      'Sure.\n[get_weather(city="Paris"), get_time(tz="UTC")]<end_of_turn>\nBack soon, [really].',
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
    ]);
    const model = withTextToolCalling(inner);
    const first = await model.generate({ messages: ask, tools: [getWeather, getTime] });
    expect(first.toolCalls).toHaveLength(2);
    expect(first.text).toBe('Sure.\nBack soon, [really].');
    const second = await model.generate({ messages: ask, tools: [getWeather, getTime] });
    expect(second.toolCalls).toHaveLength(2);
    expect(second.text).toBe('');
  });

  it('shows text brackets, a fence the call did not fill, markers in prose and no empty code span, generate and stream', async () => {
    const answers: [string, string][] = [
      ['Let me check.\nget_weather(city="Paris")\n[Weather.com](https://weather.com) has [1] more.', 'Let me check.\n[Weather.com](https://weather.com) has [1] more.'],
      ['Run this:\n```python\nget_time(tz="UTC")\nprint("done")\n```\nDone.', 'Run this:\n```python\nprint("done")\n```\nDone.'],
      ['Hermes writes <tool_call> and </tool_call>; you can run `get_time(tz="UTC")` yourself.', 'Hermes writes <tool_call> and </tool_call>; you can run yourself.'],
    ];
    for (const [answer, shown] of answers) {
      const model = withTextToolCalling(fakeTextModel([answer, answer]));
      const generated = await model.generate({ messages: ask, tools: [getWeather, getTime] });
      expect(generated.toolCalls).toHaveLength(1);
      expect(generated.text).toBe(shown);
      const streamed = await collectStream(model.stream({ messages: ask, tools: [getWeather, getTime] }));
      expect(streamed.text).toBe(shown);
    }
  });

  it("drops Kimi K2's (no content) placeholder before its tool section, generate and stream", async () => {
    const answer = '(no content)<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>';
    const model = withTextToolCalling(fakeTextModel([answer, answer]));
    const generated = await model.generate({ messages: ask, tools: [getWeather] });
    expect(generated.toolCalls.map((c) => [c.id, c.arguments])).toEqual([['functions.get_weather:0', { city: 'Oslo' }]]);
    expect(generated.text).toBe('');
    const streamed = await collect(model.stream({ messages: ask, tools: [getWeather] }));
    expect(streamed.filter((e) => e.type === 'text-delta')).toEqual([]);
    expect(streamed.filter((e) => e.type === 'tool-call')).toHaveLength(1);
  });

  it('makes unique call ids by default', async () => {
    const inner = fakeTextModel(['get_weather(city="Paris")']);
    const response = await withTextToolCalling(inner).generate({ messages: ask, tools: [getWeather] });
    expect(response.toolCalls[0]?.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
  });

  it('leaves out provider tools with a warning', async () => {
    const providerTool: ProviderTool = { type: 'provider', provider: 'fake', id: 'fake.code_interpreter', name: 'code_interpreter', config: {} };
    const inner = fakeTextModel(['Sunny.']);
    const response = await withTextToolCalling(inner).generate({ messages: ask, tools: [getWeather, providerTool] });
    expect(response.warnings).toEqual([expect.objectContaining({ type: 'unsupported-tool', toolName: 'code_interpreter' })]);
  });

  it('passes requests without tools through unchanged but for the text history', async () => {
    const inner = fakeTextModel(['Hello.']);
    const response = await withTextToolCalling(inner).generate({ messages: ask, temperature: 0.2 });
    expect(inner.requests[0]).toEqual({ messages: ask, temperature: 0.2 });
    expect(response.text).toBe('Hello.');
  });
});

describe('withTextToolCalling: stream', () => {
  it('streams text and complete tool calls, and finishes with tool-calls', async () => {
    const inner = fakeTextModel(['Checking. get_weather(city="Pa\\"ris") done']);
    const events = await collect(withTextToolCalling(inner, ids).stream({ messages: ask, tools: [getWeather] }));
    const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Checking. done');
    const callEvents = events.filter((e) => e.type.startsWith('tool-call'));
    expect(callEvents[0]).toEqual({ type: 'tool-call-start', id: 'get_weather_0', name: 'get_weather' });
    expect(callEvents.filter((e) => e.type === 'tool-call-delta').map((e) => (e.type === 'tool-call-delta' ? e.argumentsDelta : '')).join('')).toBe(
      'city="Pa\\"ris"',
    );
    expect(callEvents.at(-1)).toEqual({
      type: 'tool-call',
      toolCall: { id: 'get_weather_0', name: 'get_weather', arguments: { city: 'Pa"ris' } },
    });
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } });
  });

  it('collects to the same response as generate', async () => {
    const answer = 'Sure.\n[get_weather(city="Paris"), get_time(tz="UTC")]';
    const streamed = await collectStream(withTextToolCalling(fakeTextModel([answer]), ids).stream({ messages: ask, tools: [getWeather, getTime] }));
    const generated = await withTextToolCalling(fakeTextModel([answer]), ids).generate({ messages: ask, tools: [getWeather, getTime] });
    expect(streamed.toolCalls).toEqual(generated.toolCalls);
    expect(streamed.text.trim()).toBe(generated.text);
    expect(generated.text).toBe('Sure.');
    expect(streamed.finishReason).toBe(generated.finishReason);
  });

  it('never leaves a started call dangling: bad arguments come out as text', async () => {
    const inner = fakeTextModel(['get_weather(city=) ok']);
    const events = await collect(withTextToolCalling(inner).stream({ messages: ask, tools: [getWeather] }));
    expect(events.some((e) => e.type === 'tool-call-start')).toBe(false);
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe('get_weather(city=) ok');
  });

  it('streams an unclosed call as text at the end', async () => {
    const inner = fakeTextModel(['get_weather(city="Par']);
    const events = await collect(withTextToolCalling(inner).stream({ messages: ask, tools: [getWeather] }));
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe('get_weather(city="Par');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it("retries once for 'required' and warns when still no call", async () => {
    const inner = fakeTextModel(['No.', 'Still no.']);
    const events = await collect(withTextToolCalling(inner).stream({ messages: ask, tools: [getWeather], toolChoice: 'required' }));
    expect(inner.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'warning')).toEqual([
      { type: 'warning', warning: { type: 'other', message: expect.stringMatching(/corrective retry/) as string } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { totalTokens: 30 } });
  });

  it("retries once for 'required' and streams the retry's call", async () => {
    const inner = fakeTextModel(['No.', 'get_weather(city="Rome")']);
    const events = await collect(withTextToolCalling(inner).stream({ messages: ask, tools: [getWeather], toolChoice: 'required' }));
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.arguments] : []))).toEqual([{ city: 'Rome' }]);
    expect(events.some((e) => e.type === 'warning')).toBe(false);
  });

  it('keeps the first streamed call only when parallelToolCalls is false', async () => {
    const inner = fakeTextModel(['get_weather(city="A") get_weather(city="B")']);
    const events = await collect(withTextToolCalling(inner).stream({ messages: ask, tools: [getWeather], parallelToolCalls: false }));
    expect(events.filter((e) => e.type === 'tool-call-start')).toHaveLength(1);
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.arguments] : []))).toEqual([{ city: 'A' }]);
    expect(events.some((e) => e.type === 'warning')).toBe(true);
  });

  it('passes an error event through and stops', async () => {
    const inner: ChatModel = {
      provider: 'fake',
      modelId: 'x',
      generate: () => Promise.reject(new Error('unused')),
      async *stream() {
        await Promise.resolve();
        yield { type: 'text-delta', delta: 'get_wea' };
        yield { type: 'error', error: new Error('connection lost') };
      },
    };
    const events = await collect(withTextToolCalling(inner).stream({ messages: ask, tools: [getWeather] }));
    expect(events.map((e) => e.type)).toEqual(['text-delta', 'error']);
  });
});

describe('withTextToolCalling: promptFormat', () => {
  it('teaches the family format, writes history calls in it, and reads the answer back', async () => {
    const answer =
      '<think>The user wants Paris.</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>';
    const model = fakeTextModel([answer, answer]);
    const wrapped = withTextToolCalling(model, { promptFormat: 'qwen3-xml', ...ids });
    const history: Message[] = [
      ...ask,
      { role: 'assistant', content: '', toolCalls: [{ id: 'c0', name: 'get_time', arguments: { tz: 'UTC' } }] },
      { role: 'tool', toolCallId: 'c0', content: '12:00' },
    ];
    const response = await wrapped.generate({ messages: history, tools: [getWeather, getTime] });
    const system = model.requests[0]?.messages[0];
    expect(system?.role === 'system' ? system.content : '').toContain('<function=get_weather>\n<parameter=city>\n...\n</parameter>');
    const previous = model.requests[0]?.messages.find((m) => m.role === 'assistant');
    expect(previous?.content).toContain('<function=get_time>\n<parameter=tz>\nUTC\n</parameter>');
    expect(response.toolCalls).toEqual([{ id: 'get_weather_0', name: 'get_weather', arguments: { city: 'Paris', days: 3 } }]);
    expect(response.text).toBe('');

    const events = await collect(wrapped.stream({ messages: ask, tools: [getWeather] }));
    expect(events.filter((e) => e.type === 'reasoning-delta').map((e) => (e.type === 'reasoning-delta' ? e.delta : '')).join('')).toBe(
      'The user wants Paris.',
    );
    expect(events.filter((e) => e.type === 'tool-call')).toHaveLength(1);
  });

  it('reads back minicpm5, a format not auto-detected, when it is the one taught', async () => {
    const answer = 'Checking.\n<function name="get_weather"><param name="city">Paris</param><param name="days">3</param></function>';
    const taught = withTextToolCalling(fakeTextModel([answer, answer]), { promptFormat: 'minicpm5', ...ids });
    const response = await taught.generate({ messages: ask, tools: [getWeather] });
    expect(response.toolCalls).toEqual([{ id: 'get_weather_0', name: 'get_weather', arguments: { city: 'Paris', days: 3 } }]);
    const events = await collect(taught.stream({ messages: ask, tools: [getWeather] }));
    expect(events.filter((e) => e.type === 'tool-call')).toHaveLength(1);
    // Taught another format, the same answer is text.
    const other = await withTextToolCalling(fakeTextModel([answer]), { promptFormat: 'qwen3-xml', ...ids }).generate({ messages: ask, tools: [getWeather] });
    expect(other.toolCalls ?? []).toEqual([]);
  });
});

describe('withTextToolCalling: names the API accepts', () => {
  it('returns a call to a hyphenated tool on the text path, generate and stream', async () => {
    const weatherNow: FunctionToolSpec = {
      type: 'function',
      name: 'weather-now',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const answer = 'Checking.\nweather-now(city="Oslo")';
    const model = fakeTextModel([answer, answer]);
    const wrapped = withTextToolCalling(model, ids);
    const response = await wrapped.generate({ messages: ask, tools: [weatherNow] });
    expect(response.toolCalls).toEqual([{ id: 'weather-now_0', name: 'weather-now', arguments: { city: 'Oslo' } }]);
    expect(response.finishReason).toBe('tool-calls');
    const prompt = model.requests[0]?.messages[0];
    expect(prompt?.role === 'system' ? prompt.content : '').toContain('weather-now(city="...")');
    const events = await collect(wrapped.stream({ messages: ask, tools: [weatherNow] }));
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.name] : []))).toEqual(['weather-now']);
  });

  it('reads back a namespaced tool (ns::tool) in the call syntax it teaches, and no C++ path as a call of another tool', async () => {
    const createIssue: FunctionToolSpec = { type: 'function', name: 'github::create_issue', inputSchema: { type: 'object', properties: { title: { type: 'string' } } } };
    const sort: FunctionToolSpec = { type: 'function', name: 'sort', inputSchema: { type: 'object' } };
    const answer = 'I will file it.\ngithub::create_issue(title="Bug")';
    const model = fakeTextModel([answer, answer]);
    const wrapped = withTextToolCalling(model, ids);
    const response = await wrapped.generate({ messages: ask, tools: [createIssue, sort], toolChoice: 'required' });
    // One request: the call was read (no corrective retry, no warning).
    expect(model.requests).toHaveLength(1);
    expect(response.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['github::create_issue', { title: 'Bug' }]]);
    expect(response.text).toBe('I will file it.');
    expect(response.warnings).toEqual([]);
    const prompt = model.requests[0]?.messages[0];
    expect(prompt?.role === 'system' ? prompt.content : '').toContain('github::create_issue(title="...")');
    const events = await collect(wrapped.stream({ messages: ask, tools: [createIssue, sort] }));
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.name] : []))).toEqual(['github::create_issue']);

    const cpp = 'In C++ you sort with `std::sort(v.begin(), v.end());` and print with std::cout.';
    const code = await withTextToolCalling(fakeTextModel([cpp]), ids).generate({ messages: ask, tools: [sort] });
    expect(code.toolCalls).toEqual([]);
    expect(code.text).toBe(cpp);

    // C++'s global qualifier and member arrow: no call, and the code is shown whole.
    const open: FunctionToolSpec = { type: 'function', name: 'open', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } };
    const syscall = 'Wrap the syscall:\n```cpp\nint fd = ::open(path, O_RDONLY);\nif (fd < 0) return -1;\nconn->open(path);\n```';
    const wrapped2 = withTextToolCalling(fakeTextModel([syscall, syscall]), ids);
    const shown = await wrapped2.generate({ messages: ask, tools: [open, sort] });
    expect(shown.toolCalls).toEqual([]);
    expect(shown.text).toBe(syscall);
    const streamed = await collect(wrapped2.stream({ messages: ask, tools: [open, sort] }));
    expect(streamed.some((e) => e.type === 'tool-call')).toBe(false);
    expect(streamed.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe(syscall);
  });
});

describe('withTextToolCalling on a long answer', () => {
  it('does not keep the streamed text when no forced call may need it again', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const chars = 4 * 1024 * 1024;
    let grown = Number.NaN;
    const model: ChatModel = {
      provider: 'test',
      modelId: 'long',
      generate: () => Promise.reject(new Error('stream only')),
      async *stream() {
        gc?.();
        const before = process.memoryUsage().heapUsed;
        for (let n = 0; n < chars; n += 26) {
          yield { type: 'text-delta', delta: `lorem ipsum dolor sit ${String(n % 1000).padStart(4, '0')}` };
          if (n % (64 * 1024) === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        gc?.();
        grown = process.memoryUsage().heapUsed - before;
        yield { type: 'finish', finishReason: 'stop' };
      },
    };
    let streamed = 0;
    for await (const event of withTextToolCalling(model).stream({ messages: ask, tools: [getWeather] })) if (event.type === 'text-delta') streamed += event.delta.length;
    expect(streamed).toBeGreaterThanOrEqual(chars);
    // It kept every delta as a rope (~9 bytes per character) for a correction it never makes.
    expect(grown).toBeLessThan(chars);
  });
});
