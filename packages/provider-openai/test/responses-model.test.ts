import { collectStream, ProviderToolMismatchError, RateLimitError } from '@toolwire/core';
import type { ChatStreamEvent, ProviderTool, ProviderToolContext } from '@toolwire/core';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { useOpenAITestServer, responsesFrames } from './openai-test-server.ts';
import { eventLines, functionCallEvents, responseObject } from '@toolwire/openai-responses/testing';

const server = useOpenAITestServer();

// A recorded code-interpreter run (gpt-5-nano), streamed and whole; sources in src/__fixtures__/SOURCES.md.
const fixtures = new URL('../src/__fixtures__/', import.meta.url);
const codeInterpreterChunks = () => eventLines(readFileSync(new URL('openai-code-interpreter-tool.1.chunks.txt', fixtures), 'utf8'));
const codeInterpreterResponse = (): unknown => JSON.parse(readFileSync(new URL('openai-code-interpreter-tool.1.json', fixtures), 'utf8'));

function model() {
  return createOpenAI({ baseURL: server().baseURL, apiKey: 'sk-test', maxRetries: 0 }).responses('gpt-5-nano');
}

function codeInterpreter(handle?: ProviderTool['handleProviderOutput']): ProviderTool {
  return {
    type: 'provider',
    provider: 'openai',
    id: 'openai.code_interpreter',
    name: 'code_interpreter',
    config: { wireTool: { type: 'code_interpreter', container: { type: 'auto' } }, include: ['code_interpreter_call.outputs'] },
    ...(handle ? { handleProviderOutput: handle } : {}),
  };
}

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] },
};

describe('openai.responses generate', () => {
  it('sends instructions, input, tools and include, and maps the recorded code-interpreter answer', async () => {
    server().reply({ kind: 'json', body: codeInterpreterResponse() });
    const seen: { item: unknown; context: ProviderToolContext }[] = [];
    const tool = codeInterpreter((item, context) => {
      seen.push({ item, context });
      return { toolCallId: context.toolCallId, name: context.toolName, success: true, message: 'handled' };
    });
    const result = await model().generate({
      messages: [
        { role: 'system', content: 'You are a data analyst.' },
        { role: 'user', content: 'Simulate 10,000 rolls of two dice.' },
      ],
      tools: [tool],
    });
    expect(server().requests[0]?.path).toBe('/v1/responses');
    expect(server().requests[0]?.body).toEqual({
      model: 'gpt-5-nano',
      instructions: 'You are a data analyst.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Simulate 10,000 rolls of two dice.' }] }],
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
      include: ['code_interpreter_call.outputs'],
      stream: false,
    });
    expect(result.toolCalls).toHaveLength(3);
    expect(result.toolResults).toHaveLength(3);
    expect(result.toolResults.every((r) => r.providerExecuted === true && r.message === 'handled')).toBe(true);
    expect(result.message.toolResults).toEqual(result.toolResults);
    expect(seen[0]?.item).toMatchObject({ type: 'code_interpreter_call', outputs: [{ type: 'logs', logs: '(10000, 70024)' }] });
    expect(seen[0]?.context).toMatchObject({ toolCallId: result.toolCalls[0]?.id, toolName: 'code_interpreter', provider: 'openai', modelId: 'gpt-5-nano' });
    expect(seen[0]?.context.annotations).toEqual([expect.objectContaining({ type: 'container_file_citation' })]);
    expect(result.finishReason).toBe('stop');
  });

  it('uses a default result when the tool has no handler, and an execution_error when the handler throws', async () => {
    server().reply({ kind: 'json', body: codeInterpreterResponse() }, { kind: 'json', body: codeInterpreterResponse() });
    const plain = await model().generate({ messages: [{ role: 'user', content: 'x' }], tools: [codeInterpreter()] });
    expect(plain.toolResults[0]).toMatchObject({ success: true, message: '(10000, 70024)', providerExecuted: true, name: 'code_interpreter' });
    expect(plain.toolResults[0]?.value).toMatchObject({ type: 'code_interpreter_call' });
    const failing = await model().generate({
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        codeInterpreter(() => {
          throw new Error('disk full');
        }),
      ],
    });
    expect(failing.toolResults[0]).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(failing.toolResults[0]?.message).toContain('disk full');
  });

  it('rejects a provider tool of another provider before sending anything', async () => {
    const foreign: ProviderTool = { ...codeInterpreter(), provider: 'anthropic', name: 'web_fetch' };
    await expect(model().generate({ messages: [{ role: 'user', content: 'x' }], tools: [foreign] })).rejects.toThrow(ProviderToolMismatchError);
    expect(server().requests).toHaveLength(0);
  });

  it('round-trips a function call: call out, function_call_output back', async () => {
    server().reply({ kind: 'json', body: responseObject('completed', [{ id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]) });
    const first = await model().generate({ messages: [{ role: 'user', content: 'Paris?' }], tools: [weather], toolChoice: { type: 'tool', name: 'get_weather' } });
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(first.finishReason).toBe('tool-calls');
    expect(server().requests[0]?.body).toMatchObject({
      tools: [{ type: 'function', name: 'get_weather', parameters: weather.inputSchema, strict: false }],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    server().reply({
      kind: 'json',
      body: responseObject('completed', [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'It is 18°C.', annotations: [] }] }]),
    });
    const second = await model().generate({
      messages: [{ role: 'user', content: 'Paris?' }, first.message, { role: 'tool', toolCallId: 'call_1', content: '18°C' }],
      tools: [weather],
    });
    expect(second.text).toBe('It is 18°C.');
    expect(server().requests[1]?.body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Paris?' }] },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18°C' },
    ]);
  });
});

describe('openai.responses stream', () => {
  it('streams the recorded code-interpreter run: calls, code deltas, then results after completion', async () => {
    server().reply({ kind: 'sse', frames: responsesFrames(codeInterpreterChunks()), done: false });
    const events: ChatStreamEvent[] = [];
    const annotationsSeen: (readonly unknown[] | undefined)[] = [];
    const tool = codeInterpreter((item, context) => {
      annotationsSeen.push(context.annotations);
      const outputs = (item as { outputs: { logs: string }[] }).outputs;
      return { toolCallId: context.toolCallId, name: context.toolName, success: true, message: outputs.map((o) => o.logs).join('\n') };
    });
    for await (const event of model().stream({ messages: [{ role: 'user', content: 'Roll dice' }], tools: [tool] })) events.push(event);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'tool-call-start')).toHaveLength(3);
    expect(types.filter((type) => type === 'tool-call')).toHaveLength(3);
    expect(types.slice(-4)).toEqual(['tool-result', 'tool-result', 'tool-result', 'finish']);
    const results = events.flatMap((event) => (event.type === 'tool-result' ? [event.result] : []));
    expect(results[0]).toMatchObject({ success: true, message: '(2, 12, 69868, 6.9868)', providerExecuted: true });
    expect(annotationsSeen[0]).toEqual([expect.objectContaining({ filename: 'roll2dice_sums_10000.csv' })]);
    expect(server().requests[0]?.body).toMatchObject({ stream: true, include: ['code_interpreter_call.outputs'] });
  });

  it('collects a streamed function call into the same response generate would give', async () => {
    server().reply({ kind: 'sse', frames: responsesFrames(functionCallEvents([{ callId: 'call_9', name: 'get_weather', fragments: ['{"city":', '"Oslo"}'] }])), done: false });
    const result = await collectStream(model().stream({ messages: [{ role: 'user', content: 'Oslo?' }], tools: [weather] }));
    expect(result.toolCalls).toEqual([{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage?.cachedInputTokens).toBe(100);
  });

  it('says what a 200 answer to a stream that is no event stream is: the error in its JSON, or what came back', async () => {
    server().reply({ kind: 'json', body: { error: { message: 'Rate limit exceeded: free-models-per-day', code: 429 } } });
    const limited = await collectStream(model().stream({ messages: [{ role: 'user', content: 'Hi' }] })).catch((e: unknown) => e);
    expect(RateLimitError.isInstance(limited)).toBe(true);
    expect((limited as Error).message).toContain('Rate limit exceeded: free-models-per-day');

    server().reply({ kind: 'json', body: { detail: 'Not Found' } });
    const other = await collectStream(model().stream({ messages: [{ role: 'user', content: 'Hi' }] })).catch((e: unknown) => e);
    expect(other).toMatchObject({ name: 'ProviderError', code: 'not_event_stream' });
    expect((other as Error).message).toContain('answered a streamed Responses request with JSON (HTTP 200), not an event stream');
  });

  it('turns response.failed into a final error event', async () => {
    server().reply({
      kind: 'sse',
      done: false,
      frames: responsesFrames([
        { type: 'response.created', sequence_number: 0, response: responseObject('in_progress') } as never,
        { type: 'response.failed', sequence_number: 1, response: responseObject('failed', [], { error: { code: 'rate_limit_exceeded', message: 'Slow down.' } }) } as never,
      ]),
    });
    const events: ChatStreamEvent[] = [];
    for await (const event of model().stream({ messages: [{ role: 'user', content: 'x' }] })) events.push(event);
    const last = events.at(-1);
    expect(last?.type === 'error' && RateLimitError.isInstance(last.error)).toBe(true);
  });
});
