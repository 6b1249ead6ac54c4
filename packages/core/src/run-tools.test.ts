import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.ts';
import { runTools } from './run-tools.ts';
import type { RunToolsEvent } from './run-tools-types.ts';
import { createScriptedModel } from './testing/scripted-model.ts';
import { ToolRegistry } from './tool-registry.ts';
import type { Message, ToolMessage } from './types/message.ts';
import type { FunctionToolSpec } from './types/tool.ts';

const question: Message[] = [{ role: 'user', content: 'Weather in Paris and Oslo?' }];

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperature: city === 'Paris' ? 21 : 4 }),
});

function toolMessages(messages: readonly Message[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === 'tool');
}

describe('runTools', () => {
  it('answers directly when the model calls no tool', async () => {
    const model = createScriptedModel([{ text: 'Hello!', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }]);
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(result).toMatchObject({ text: 'Hello!', stoppedBy: 'answer', finishReason: 'stop', pendingToolCalls: [] });
    expect(result.steps).toHaveLength(1);
    expect(result.newMessages).toEqual([{ role: 'assistant', content: 'Hello!' }]);
    expect(result.messages).toEqual([...question, { role: 'assistant', content: 'Hello!' }]);
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
  });

  it('runs tool calls, feeds the results back, and returns the final answer', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }], usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
      { text: 'Paris is at 21°.', usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 } },
    ]);
    const result = await runTools({ model, messages: question, tools: [weather] });

    expect(result.stoppedBy).toBe('answer');
    expect(result.text).toBe('Paris is at 21°.');
    expect(result.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(result.newMessages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(toolMessages(result.messages)[0]).toMatchObject({
      role: 'tool',
      toolCallId: 'c1',
      toolName: 'get_weather',
      content: '{"city":"Paris","temperature":21}',
      result: { success: true, value: { city: 'Paris', temperature: 21 } },
    });
    // The second model call sees the tool result.
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1' });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 11, totalTokens: 41 });
    // The input is not modified.
    expect(question).toHaveLength(1);
  });

  it('runs several steps in a row', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Done.' },
    ]);
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(result.steps.map((s) => s.stepNumber)).toEqual([1, 2, 3]);
    expect(toolMessages(result.messages).map((m) => m.content)).toEqual([
      '{"city":"Paris","temperature":21}',
      '{"city":"Oslo","temperature":4}',
    ]);
    expect(model.requests[2]?.messages).toHaveLength(5);
  });

  it('runs the calls of one turn concurrently and answers them in call order', async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: 'slow',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        running++;
        peak = Math.max(peak, running);
        // The first call finishes last.
        await new Promise((resolve) => setTimeout(resolve, n === 1 ? 30 : 5));
        running--;
        return n;
      },
    });
    const model = createScriptedModel([
      { toolCalls: [1, 2, 3].map((n) => ({ id: `c${n}`, name: 'slow', arguments: { n } })) },
      { text: 'ok' },
    ]);
    const result = await runTools({ model, messages: question, tools: [slow] });
    expect(peak).toBe(3);
    expect(toolMessages(result.messages).map((m) => m.toolCallId)).toEqual(['c1', 'c2', 'c3']);
    // Not sent unless chosen: some models reject the parameter.
    expect(model.requests[0]).not.toHaveProperty('parallelToolCalls');
  });

  it('runs calls one after another with parallelToolCalls: false and asks the model for that', async () => {
    let running = 0;
    let peak = 0;
    const tick = defineTool({
      name: 'tick',
      parameters: { type: 'object' },
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
        return 'tock';
      },
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'tick' }, { name: 'tick' }] }, { text: 'ok' }]);
    await runTools({ model, messages: question, tools: [tick], parallelToolCalls: false });
    expect(peak).toBe(1);
    expect(model.requests[0]?.parallelToolCalls).toBe(false);
  });

  it('feeds a failing tool back to the model as an execution_error', async () => {
    const broken = defineTool({
      name: 'broken',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('disk full');
      },
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'broken' }] }, { text: 'Sorry, the tool failed.' }]);
    const result = await runTools({ model, messages: question, tools: [broken] });
    expect(result.stoppedBy).toBe('answer');
    expect(toolMessages(result.messages)[0]?.content).toBe('Tool "broken" failed: disk full');
    expect(result.steps[0]?.toolResults[0]?.error?.type).toBe('execution_error');
  });

  it('feeds an unknown tool back with the list of available tools', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_wether', arguments: { city: 'Paris' } }] }, { text: 'ok' }]);
    const result = await runTools({ model, messages: question, tools: [weather] });
    const reply = toolMessages(result.messages)[0];
    expect(reply?.result?.error?.type).toBe('unknown_tool');
    expect(reply?.content).toBe('Unknown tool "get_wether". Available tools: get_weather. Call one of these instead.');
  });

  it('feeds invalid arguments back so the model can correct them', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { town: 'Paris' } }] },
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: '21°' },
    ]);
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(toolMessages(result.messages).map((m) => m.result?.error?.type ?? 'ok')).toEqual(['validation_error', 'ok']);
    expect(toolMessages(result.messages)[0]?.content).toBe(
      'Invalid arguments for "get_weather": city: is required. Fix them and call "get_weather" again.',
    );
  });

  it('answers a call whose arguments could not be parsed with a validation_error', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', invalid: { rawArguments: '{"city": "Par', message: 'unterminated string at 9' } }] },
      { text: 'ok' },
    ]);
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(toolMessages(result.messages)[0]?.content).toMatch(/^The arguments of "get_weather" could not be read: unterminated string at 9\./);
  });

  it('sends the model at most maxResultChars of each answer, the unknown-tool answer included, and rejects a bad bound', async () => {
    const dump = defineTool({ name: 'dump', parameters: z.object({}), execute: () => 'y'.repeat(500) });
    const model = createScriptedModel([{ toolCalls: [{ name: 'dump' }, { name: 'x'.repeat(500) }] }, { text: 'done' }]);
    const result = await runTools({ model, messages: question, tools: [dump], maxResultChars: 200 });
    const [dumped, unknown] = toolMessages(model.requests[1]?.messages ?? []);
    expect(dumped?.content).toMatch(/^y{200}\n\[Cut: the tool's answer has 500 characters; only the first 200 are shown\.\]$/);
    expect(dumped?.result?.value).toBe('y'.repeat(500));
    expect(unknown?.content).toMatch(/^Unknown tool "x+\n\[Cut: /);
    expect(result.stoppedBy).toBe('answer');
    await expect(runTools({ model: createScriptedModel([]), messages: question, tools: [dump], maxResultChars: 0 })).rejects.toThrow(RangeError);
  });

  it('stops at maxSteps and reports it as such, not as an answer', async () => {
    const model = createScriptedModel(Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] })));
    const result = await runTools({ model, messages: question, tools: [weather], maxSteps: 3 });
    expect(result.stoppedBy).toBe('max-steps');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.steps).toHaveLength(3);
    expect(model.calls).toHaveLength(3);
    // The last calls were still answered, so the history can be continued.
    expect(result.messages.at(-1)?.role).toBe('tool');
  });

  it('makes at most 10 model calls by default', async () => {
    const model = createScriptedModel(Array.from({ length: 12 }, () => ({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] })));
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(result.stoppedBy).toBe('max-steps');
    expect(model.calls).toHaveLength(10);
  });

  it('rejects a maxSteps that is not a whole number >= 1', async () => {
    const model = createScriptedModel([{ text: 'x' }]);
    await expect(runTools({ model, messages: question, tools: [weather], maxSteps: 0 })).rejects.toThrow(RangeError);
  });

  it('stops for client tools and returns their calls, after running the server tools of the turn', async () => {
    const confirm: FunctionToolSpec = {
      type: 'function',
      name: 'confirm_booking',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    };
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'c2', name: 'confirm_booking', arguments: { id: 'b7' } },
        ],
      },
    ]);
    const result = await runTools({ model, messages: question, tools: [weather, confirm] });
    expect(result.stoppedBy).toBe('client-tool-calls');
    expect(result.pendingToolCalls).toEqual([{ id: 'c2', name: 'confirm_booking', arguments: { id: 'b7' } }]);
    expect(result.newMessages.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(toolMessages(result.messages).map((m) => m.toolCallId)).toEqual(['c1']);
    expect(model.calls).toHaveLength(1);
  });

  it('continues a run after the caller answered the client calls', async () => {
    const pick = defineTool({ name: 'pick_date', parameters: z.object({ month: z.string() }) });
    const model = createScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pick_date', arguments: { month: 'May' } }] }, { text: 'Booked for May 3.' }]);
    const first = await runTools({ model, messages: question, tools: [pick] });
    expect(first.stoppedBy).toBe('client-tool-calls');
    const answered: Message[] = [...first.messages, { role: 'tool', toolCallId: 'p1', toolName: 'pick_date', content: '2026-05-03' }];
    const second = await runTools({ model, messages: answered, tools: [pick] });
    expect(second).toMatchObject({ stoppedBy: 'answer', text: 'Booked for May 3.' });
  });

  it('answers a client tool call with invalid arguments itself instead of handing it over', async () => {
    const pick = defineTool({ name: 'pick_date', parameters: z.object({ month: z.string() }) });
    const model = createScriptedModel([{ toolCalls: [{ name: 'pick_date', arguments: { month: 5 } }] }, { text: 'ok' }]);
    const result = await runTools({ model, messages: question, tools: [pick] });
    expect(result.stoppedBy).toBe('answer');
    expect(toolMessages(result.messages)[0]?.result?.error?.type).toBe('validation_error');
  });

  it('never runs provider-executed calls and keeps the provider results', async () => {
    const providerResult = { toolCallId: 'ci1', name: 'code_interpreter', success: true, message: '42', providerExecuted: true };
    const model = createScriptedModel([
      {
        text: 'The answer is 42.',
        toolCalls: [{ id: 'ci1', name: 'code_interpreter', arguments: { code: '6*7' }, providerExecuted: true }],
        toolResults: [providerResult],
      },
    ]);
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(result.stoppedBy).toBe('answer');
    expect(result.steps[0]?.toolResults).toEqual([providerResult]);
    expect(toolMessages(result.messages)).toEqual([]);
  });

  it('uses a forcing toolChoice on the first step only', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: '4°' }]);
    await runTools({ model, messages: question, tools: [weather], toolChoice: { type: 'tool', name: 'get_weather' } });
    expect(model.requests.map((r) => r.toolChoice)).toEqual([{ type: 'tool', name: 'get_weather' }, 'auto']);

    const required = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: '4°' }]);
    await runTools({ model: required, messages: question, tools: [weather], toolChoice: 'required' });
    expect(required.requests.map((r) => r.toolChoice)).toEqual(['required', 'auto']);
  });

  it('keeps toolChoice "none" on every step', async () => {
    const model = createScriptedModel([{ text: 'no tools' }]);
    await runTools({ model, messages: question, tools: [weather], toolChoice: 'none' });
    expect(model.requests[0]?.toolChoice).toBe('none');
  });

  it('passes settings to every model call', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'ok' }]);
    await runTools({ model, messages: question, tools: [weather], settings: { temperature: 0.2, maxOutputTokens: 100 } });
    for (const request of model.requests) expect(request).toMatchObject({ temperature: 0.2, maxOutputTokens: 100 });
  });

  it('reports steps and tool calls to onEvent', async () => {
    const events: RunToolsEvent['type'][] = [];
    const model = createScriptedModel([{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'ok' }]);
    await runTools({ model, messages: question, tools: [weather], onEvent: (event) => void events.push(event.type) });
    expect(events).toEqual(['step-start', 'tool-call', 'tool-result', 'step-finish', 'step-start', 'step-finish']);
  });

  it('rejects with the abort reason when aborted while the model is thinking', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([
      () => {
        controller.abort();
        return new Promise(() => {
          // A model that never answers: only the abort ends the run.
        });
      },
    ]);
    const run = runTools({ model, messages: question, tools: [weather], signal: controller.signal });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects with the abort reason when aborted while a tool runs, and the tool sees its signal fire', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const wait = defineTool({
      name: 'wait',
      parameters: { type: 'object' },
      execute: (_args, { signal }) => {
        toolSignal = signal;
        controller.abort();
        return new Promise(() => {
          // Never settles.
        });
      },
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'wait' }] }, { text: 'never' }]);
    await expect(runTools({ model, messages: question, tools: [wait], signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(toolSignal?.aborted).toBe(true);
    expect(model.calls).toHaveLength(1);
  });

  it('rejects with the abort reason when aborted while onEvent awaits a call of a step with no local tools', async () => {
    const controller = new AbortController();
    // No `execute`: the call is the client's, so the step has nothing to run here.
    const clientTool: FunctionToolSpec = { type: 'function', name: 'ask_user', inputSchema: { type: 'object' } };
    const model = createScriptedModel([{ toolCalls: [{ name: 'ask_user' }] }]);
    const run = runTools({
      model,
      messages: question,
      tools: [clientTool],
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'tool-call') controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects at once with an already aborted signal, without calling the model', async () => {
    const model = createScriptedModel([{ text: 'x' }]);
    const reason = new DOMException('stop', 'AbortError');
    await expect(runTools({ model, messages: question, tools: [weather], signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(model.calls).toHaveLength(0);
  });

  it('gives up a tool that exceeds timeoutMs and tells the model', async () => {
    const hang = defineTool({
      name: 'hang',
      parameters: { type: 'object' },
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'hang' }] }, { text: 'The tool took too long.' }]);
    const result = await runTools({ model, messages: question, tools: [hang], timeoutMs: 20 });
    expect(toolMessages(result.messages)[0]?.result?.error?.type).toBe('timeout');
  });

  it('runs calls through a registry, with its permissions, when one is given', async () => {
    const secret = defineTool({ name: 'read_secret', parameters: { type: 'object' }, execute: () => 'hunter2' });
    const registry = new ToolRegistry({ tools: [weather, secret], permissions: { alice: ['get_*'] } });
    const model = createScriptedModel([{ toolCalls: [{ name: 'read_secret' }] }, { text: 'ok' }]);
    const result = await runTools({ model, messages: question, registry, principal: 'alice' });
    // Offered tools default to what the principal may use.
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['get_weather']);
    expect(toolMessages(result.messages)[0]?.result?.error?.type).toBe('permission_denied');
  });

  it('gives tools the conversation up to the turn that called them', async () => {
    let seen: readonly Message[] | undefined;
    const look = defineTool({
      name: 'look',
      parameters: { type: 'object' },
      execute: (_args, { messages }) => {
        seen = messages;
        return 'seen';
      },
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'look' }] }, { text: 'ok' }]);
    const result = await runTools({ model, messages: question, tools: [look] });
    expect(seen?.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(result.messages).toHaveLength(4);
  });

  it("respects the registry's concurrency limit for a turn's parallel calls", async () => {
    let running = 0;
    let peak = 0;
    const job = defineTool({
      name: 'job',
      parameters: { type: 'object' },
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 3));
        running--;
        return 'done';
      },
    });
    const registry = new ToolRegistry({ tools: [job], maxConcurrency: 2 });
    const model = createScriptedModel([{ toolCalls: Array.from({ length: 6 }, () => ({ name: 'job' })) }, { text: 'ok' }]);
    const result = await runTools({ model, messages: question, registry });
    expect(peak).toBe(2);
    expect(toolMessages(result.messages)).toHaveLength(6);
  });

  it('also runs offered tools that the registry does not hold', async () => {
    const registry = new ToolRegistry({ tools: [weather] });
    const echo = defineTool({ name: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }, { name: 'echo', arguments: { text: 'hi' } }] },
      { text: 'ok' },
    ]);
    const result = await runTools({ model, messages: question, registry, tools: [weather, echo] });
    expect(toolMessages(result.messages).map((m) => m.content)).toEqual(['{"city":"Oslo","temperature":4}', 'hi']);
  });

  it("leaves a caller's own spec named like a registry tool to the caller", async () => {
    const registry = new ToolRegistry({ tools: [weather] });
    const own: FunctionToolSpec = { type: 'function', name: 'get_weather', inputSchema: { type: 'object', properties: { place: { type: 'string' } } } };
    const model = createScriptedModel([{ toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { place: 'Oslo' } }] }]);
    const result = await runTools({ model, messages: question, registry, tools: [own] });
    expect(result.stoppedBy).toBe('client-tool-calls');
    expect(result.pendingToolCalls).toEqual([{ id: 'c1', name: 'get_weather', arguments: { place: 'Oslo' } }]);
    expect(model.requests[0]?.tools).toEqual([own]);
  });

  it('never runs a registry tool that an explicit tools list left out', async () => {
    let ran = false;
    const secret = defineTool({ name: 'read_secret', parameters: { type: 'object' }, execute: () => ((ran = true), 'hunter2') });
    const registry = new ToolRegistry({ tools: [weather, secret] });
    const model = createScriptedModel([{ toolCalls: [{ name: 'read_secret' }] }, { text: 'ok' }]);
    const result = await runTools({ model, messages: question, registry, tools: [weather] });
    expect(ran).toBe(false);
    expect(toolMessages(result.messages)[0]?.result?.error?.type).toBe('unknown_tool');
  });

  it('reports every call run here to onToolAudit, and none of the client calls', async () => {
    const audits: string[] = [];
    const registry = new ToolRegistry({ tools: [weather] });
    const lookup: FunctionToolSpec = { type: 'function', name: 'lookup', inputSchema: { type: 'object' } };
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { toolCalls: [{ name: 'lookup', arguments: {} }] },
    ]);
    await runTools({ model, messages: question, registry, tools: [weather, lookup], principal: 'p', onToolAudit: (a) => audits.push(`${a.toolName}:${a.outcome}:${a.principal ?? ''}`) });
    expect(audits).toEqual(['get_weather:success:p']);
  });

  it('surfaces a model error as a rejection', async () => {
    const model = createScriptedModel([{ error: new Error('upstream down') }]);
    await expect(runTools({ model, messages: question, tools: [weather] })).rejects.toThrow('upstream down');
  });
});
