import type { ChatStreamEvent } from '@toolwire/core';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { describe, expect, it } from 'vitest';
import type { ResponsesEcho } from './parsed-responses-request.ts';
import { createResponsesEventMapper } from './responses-event-mapper.ts';
import type { ClientToolShape, ResponsesEventMapper } from './responses-event-mapper.ts';
import type { WireResponsesEvent } from './responses-wire-types.ts';

const echo: ResponsesEcho = {
  instructions: null,
  tools: [],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  max_output_tokens: null,
  temperature: null,
  top_p: null,
  text: { format: { type: 'text' } },
  reasoning: { effort: null, summary: null },
  metadata: {},
  prompt_cache_key: null,
  store: false,
  truncation: 'disabled',
  user: null,
  service_tier: 'default',
  previous_response_id: null,
};

function mapper(tools: [string, ClientToolShape][] = []): ResponsesEventMapper {
  let n = 0;
  return createResponsesEventMapper({
    identity: { id: 'resp_1', createdAt: 1_700_000_000, model: 'ollama/qwen3', echo },
    tools: new Map(tools),
    generateId: (prefix) => `${prefix}${++n}`,
  });
}

function run(m: ResponsesEventMapper, events: ChatStreamEvent[]): WireResponsesEvent[] {
  const out = m.start();
  for (const event of events) out.push(...m.push(event));
  return out;
}

/** Feeds the events to openai-node's own Responses stream helper, which validates every event. */
async function parseWithOpenAI(events: WireResponsesEvent[]): Promise<Awaited<ReturnType<ResponseStream['finalResponse']>>> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
      controller.close();
    },
  });
  return ResponseStream.fromReadableStream(body).finalResponse();
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

describe('createResponsesEventMapper', () => {
  it('streams a text answer as OpenAI does, with sequence numbers from 0', async () => {
    const events = run(mapper(), [
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', finishReason: 'stop', usage },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1);
    expect(completed?.type === 'response.completed' && completed.response).toMatchObject({
      id: 'resp_1',
      status: 'completed',
      output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello', annotations: [] }] }],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    });
    const parsed = await parseWithOpenAI(events);
    expect(parsed.output_text).toBe('Hello');
  });

  it('streams text then a function call as two items, arguments as they come', async () => {
    const events = run(mapper(), [
      { type: 'text-delta', delta: 'Checking.' },
      { type: 'tool-call-start', id: 'call_a', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '"Paris"}' },
      { type: 'tool-call', toolCall: { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } } },
      { type: 'finish', finishReason: 'tool-calls', usage },
    ]);
    const calls = events.filter((e) => e.type.startsWith('response.function_call_arguments'));
    expect(calls).toMatchObject([
      { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 1, delta: '{"city":' },
      { type: 'response.function_call_arguments.delta', delta: '"Paris"}' },
      { type: 'response.function_call_arguments.done', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    const parsed = await parseWithOpenAI(events);
    expect(parsed.output).toMatchObject([
      { type: 'message', content: [{ text: 'Checking.' }] },
      { type: 'function_call', id: 'fc_2', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
    ]);
    expect(parsed.status).toBe('completed');
  });

  it('never interleaves two calls: the second waits until the first is complete', async () => {
    const events = run(mapper(), [
      { type: 'tool-call-start', id: 'call_a', name: 'f' },
      { type: 'tool-call-start', id: 'call_b', name: 'g' },
      { type: 'tool-call-delta', id: 'call_b', argumentsDelta: '{"y":2}' },
      { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '{"x":1}' },
      { type: 'text-delta', delta: 'late text' },
      { type: 'tool-call', toolCall: { id: 'call_b', name: 'g', arguments: { y: 2 } } },
      { type: 'tool-call', toolCall: { id: 'call_a', name: 'f', arguments: { x: 1 } } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const order = events.filter((e) => e.type === 'response.output_item.added' || e.type === 'response.output_item.done').map((e) => `${e.type.slice(21)}:${'item' in e ? e.item.type : ''}`);
    expect(order).toEqual(['added:function_call', 'done:function_call', 'added:function_call', 'done:function_call', 'added:message', 'done:message']);
    const parsed = await parseWithOpenAI(events);
    expect(parsed.output.map((item) => (item.type === 'function_call' ? item.arguments : item.type))).toEqual(['{"x":1}', '{"y":2}', 'message']);
    expect(parsed.usage ?? null).toBeNull();
  });

  it('gives a call without deltas its arguments as one JSON delta', () => {
    const events = run(mapper(), [
      { type: 'tool-call', toolCall: { id: 'call_a', name: 'f', arguments: { q: 'x' } } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    expect(events.find((e) => e.type === 'response.function_call_arguments.delta')).toMatchObject({ delta: '{"q":"x"}' });
  });

  it('sends a freeform tool call as a custom_tool_call with the decoded input', async () => {
    const events = run(mapper([['apply_patch', { kind: 'custom' }]]), [
      { type: 'tool-call-start', id: 'call_p', name: 'apply_patch' },
      { type: 'tool-call-delta', id: 'call_p', argumentsDelta: '{"input":"*** Begin Patch\\n' },
      { type: 'tool-call-delta', id: 'call_p', argumentsDelta: '*** End Patch"}' },
      { type: 'tool-call', toolCall: { id: 'call_p', name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** End Patch' } } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    expect(events.filter((e) => e.type.startsWith('response.custom_tool_call_input'))).toMatchObject([
      { type: 'response.custom_tool_call_input.delta', delta: '*** Begin Patch\n*** End Patch' },
      { type: 'response.custom_tool_call_input.done', input: '*** Begin Patch\n*** End Patch' },
    ]);
    const parsed = await parseWithOpenAI(events);
    expect(parsed.output).toMatchObject([{ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' }]);
  });

  it('puts the namespace back on calls of a namespaced function', () => {
    const m = mapper([['spawn_agent', { kind: 'function', namespace: 'multi_agent_v1' }]]);
    run(m, [
      { type: 'tool-call', toolCall: { id: 'call_a', name: 'spawn_agent', arguments: {} } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    expect(m.response().output).toMatchObject([{ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' }]);
  });

  it('streams reasoning as a reasoning item before the answer', async () => {
    const events = run(mapper(), [
      { type: 'reasoning-delta', delta: 'think' },
      { type: 'text-delta', delta: 'answer' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(events.map((e) => e.type)).toContain('response.reasoning_text.delta');
    const parsed = await parseWithOpenAI(events);
    expect(parsed.output).toMatchObject([
      { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'think' }] },
      { type: 'message', content: [{ text: 'answer' }] },
    ]);
    expect(parsed.output_text).toBe('answer');
  });

  it('ends with response.incomplete when the token limit cut the answer', async () => {
    const events = run(mapper(), [
      { type: 'text-delta', delta: 'cut' },
      { type: 'finish', finishReason: 'length', usage },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
    const parsed = await parseWithOpenAI(events);
    expect(parsed.status).toBe('incomplete');
  });

  it('fails with an error event and response.failed, which openai-node raises as an APIError', async () => {
    const m = mapper();
    const events = run(m, [{ type: 'text-delta', delta: 'partial' }]);
    events.push(...m.fail({ code: 'server_error', message: 'The upstream connection was reset.', param: null }));
    expect(events.slice(-2)).toMatchObject([
      { type: 'error', code: 'server_error', message: 'The upstream connection was reset.' },
      { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'The upstream connection was reset.' } } },
    ]);
    expect(m.finished).toBe(true);
    expect(m.push({ type: 'finish', finishReason: 'stop' })).toEqual([]);
    await expect(parseWithOpenAI(events)).rejects.toThrow('The upstream connection was reset.');
  });

  it('echoes the request settings in the response', () => {
    const m = mapper();
    expect(m.start()[0]).toMatchObject({ type: 'response.created', sequence_number: 0, response: { status: 'in_progress', output: [], tool_choice: 'auto', store: false, usage: null } });
  });
});
