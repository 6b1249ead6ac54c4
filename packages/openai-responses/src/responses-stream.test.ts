import { ContextLengthExceededError, RateLimitError, StreamError } from '@toolwire/core';
import type { ProviderTool } from '@toolwire/core';
import type { ResponsesStreamEvent } from './responses-wire.ts';
import { describe, expect, it } from 'vitest';
import { codeInterpreterChunks } from '../test/recorded-streams.ts';
import { functionCallEvents, responseObject } from './testing/index.ts';
import { prepareResponsesTools } from './responses-tools.ts';
import { createResponsesStreamDecoder } from './responses-stream.ts';
import type { ResponsesStreamPart } from './responses-stream.ts';
import { codeInterpreter } from '../test/code-interpreter-tool.ts';

function run(events: ResponsesStreamEvent[], tools: ProviderTool[] = []): ResponsesStreamPart[] {
  const mapper = createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', providerTools: prepareResponsesTools(tools, undefined).providerTools });
  return [...events.flatMap((event) => mapper.push(event)), ...mapper.end()];
}

function ofType<T extends ResponsesStreamPart['type']>(parts: ResponsesStreamPart[], type: T): Extract<ResponsesStreamPart, { type: T }>[] {
  return parts.filter((part): part is Extract<ResponsesStreamPart, { type: T }> => part.type === type);
}

describe('createResponsesStreamDecoder', () => {
  it('reads reasoning deltas whose ids are objects with their own toString key (parsed JSON) without throwing', () => {
    const event = JSON.parse('{"type":"response.reasoning_summary_text.delta","item_id":{"toString":{"polluted":true}},"summary_index":{"valueOf":1},"delta":"Hmm."}') as ResponsesStreamEvent;
    const content = JSON.parse('{"type":"response.reasoning_text.delta","item_id":{"toString":{}},"content_index":{"toString":null},"delta":"Hmm."}') as ResponsesStreamEvent;
    expect(() => run([event, content])).not.toThrow();
  });

  it('streams function calls: start, deltas, then the call at output_item.done', () => {
    const parts = run(functionCallEvents([{ callId: 'call_1', name: 'get_weather', fragments: ['{"city"', ':"Paris"}'] }], 'Checking.'));
    expect(parts.filter((part) => part.type !== 'finish')).toEqual([
      { type: 'text-delta', delta: 'Checking.' },
      { type: 'tool-call-start', id: 'call_1', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'call_1', argumentsDelta: '{"city"' },
      { type: 'tool-call-delta', id: 'call_1', argumentsDelta: ':"Paris"}' },
      { type: 'tool-call', toolCall: { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } } },
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { inputTokens: 120, outputTokens: 40, totalTokens: 160, cachedInputTokens: 100, reasoningTokens: 8 },
      responseId: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    });
  });

  it('finishes calls whose output_item.done never came when the response completes', () => {
    const events = functionCallEvents([{ callId: 'call_1', name: 'f', fragments: ['{"a":1}'] }]).filter((event) => event.type !== 'response.output_item.done');
    expect(ofType(run(events), 'tool-call')[0]?.toolCall).toEqual({ id: 'call_1', name: 'f', arguments: { a: 1 } });
  });

  it('gives a call whose call_id an earlier call of the response has (or that has no id at all) an id of ours', () => {
    const added = (index: number, itemId: string | undefined, callId: string) => ({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...(itemId !== undefined ? { id: itemId } : {}), type: 'function_call', call_id: callId, name: 'f', arguments: '' },
    });
    const parts = run([
      { type: 'response.created', response: { id: 'resp_1' } },
      added(0, 'fc_1', 'call_1'),
      added(1, 'fc_2', 'call_1'),
      added(2, undefined, ''),
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"a":1}' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 1, delta: '{"a":2}' },
      { type: 'response.function_call_arguments.delta', output_index: 2, delta: '{"a":3}' },
      { type: 'response.completed', response: { id: 'resp_1', status: 'completed' } },
    ] as ResponsesStreamEvent[]);
    const calls = ofType(parts, 'tool-call').map((part) => part.toolCall);
    expect(calls.map((call) => call.arguments)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(calls[0]?.id).toBe('call_1');
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    for (const call of calls) expect(call.id).toMatch(/^call_/);
    expect(ofType(parts, 'tool-call-start').map((part) => part.id)).toEqual(calls.map((call) => call.id));
  });

  it('does not repeat streamed text at the done message when the deltas named no item', () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] };
    for (const delta of [{ output_index: 0 }, {}]) {
      const parts = run([
        { type: 'response.output_item.added', output_index: 0, item: { ...message, content: [] } },
        { type: 'response.output_text.delta', content_index: 0, delta: 'Hello', ...delta },
        { type: 'response.output_item.done', output_index: 0, item: message },
        { type: 'response.completed', response: { id: 'resp_1', status: 'completed' } },
      ] as ResponsesStreamEvent[]);
      expect(ofType(parts, 'text-delta').map((part) => part.delta).join('')).toBe('Hello');
    }
  });

  it('maps the recorded code-interpreter stream to provider-executed calls, results after completion', () => {
    const parts = run(codeInterpreterChunks(), [codeInterpreter]);
    const starts = ofType(parts, 'tool-call-start');
    expect(starts).toHaveLength(3);
    expect(starts.every((start) => start.providerExecuted === true && start.name === 'code_interpreter')).toBe(true);
    const calls = ofType(parts, 'tool-call');
    expect(calls).toHaveLength(3);
    for (const { toolCall } of calls) {
      expect(toolCall.providerExecuted).toBe(true);
      const deltas = ofType(parts, 'tool-call-delta').filter((delta) => delta.id === toolCall.id);
      // The deltas spell out exactly the JSON of the final arguments.
      expect(deltas.map((delta) => delta.argumentsDelta).join('')).toBe(JSON.stringify(toolCall.arguments));
    }
    expect(calls[0]?.toolCall.arguments['code']).toContain('random.randint(1,6)');
    const outputs = ofType(parts, 'provider-output');
    expect(outputs.map((output) => output.output.toolCallId)).toEqual(calls.map((call) => call.toolCall.id));
    expect(outputs[0]?.output.item['outputs']).toEqual([{ type: 'logs', logs: '(2, 12, 69868, 6.9868)' }]);
    expect(outputs[0]?.annotations).toEqual([expect.objectContaining({ type: 'container_file_citation', filename: 'roll2dice_sums_10000.csv' })]);
    // Results only once the response has completed: right before the finish.
    const firstOutput = parts.findIndex((part) => part.type === 'provider-output');
    expect(parts.slice(firstOutput, -1).every((part) => part.type === 'provider-output')).toBe(true);
    const finish = parts.at(-1);
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop', providerMetadata: { openai: { annotations: outputs[0]?.annotations } } });
    expect(ofType(parts, 'text-delta').map((part) => part.delta).join('')).toContain('10,000');
  });

  it('reports length for an incomplete response and marks an unfinished call invalid', () => {
    const events: ResponsesStreamEvent[] = functionCallEvents([{ callId: 'call_1', name: 'write', fragments: ['{"text":"Once'] }]).filter(
      (event) => event.type !== 'response.output_item.done' && event.type !== 'response.completed',
    );
    events.push({
      type: 'response.incomplete',
      sequence_number: 99,
      response: responseObject('incomplete', [], { incomplete_details: { reason: 'max_output_tokens' } }),
    });
    const parts = run(events);
    expect(ofType(parts, 'tool-call')[0]?.toolCall.invalid?.rawArguments).toBe('{"text":"Once');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });

  it('turns response.failed into an error event of the matching class', () => {
    const parts = run([
      { type: 'response.created', sequence_number: 0, response: responseObject('in_progress') },
      {
        type: 'response.failed',
        sequence_number: 1,
        response: responseObject('failed', [], { error: { code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-4.1-mini.' } }),
      },
    ]);
    expect(parts).toHaveLength(1);
    const [part] = parts;
    expect(part?.type === 'error' && RateLimitError.isInstance(part.error)).toBe(true);
  });

  it('turns an error event into an error event', () => {
    const parts = run([{ type: 'error', sequence_number: 0, code: 'context_length_exceeded', message: 'Your input exceeds the context window.', param: null }]);
    const [part] = parts;
    expect(part?.type === 'error' && ContextLengthExceededError.isInstance(part.error)).toBe(true);
    expect(part?.type === 'error' && part.error.message).toBe('Your input exceeds the context window.');
  });

  it('ends with an error event when the stream stops before completion', () => {
    const events = functionCallEvents([{ callId: 'call_1', name: 'f', fragments: ['{"a":1}'] }]).filter((event) => event.type !== 'response.completed');
    const parts = run(events);
    const last = parts.at(-1);
    expect(last?.type === 'error' && StreamError.isInstance(last.error)).toBe(true);
  });
});

describe('createResponsesStreamDecoder with parallelToolCalls: false', () => {
  it('emits only the first function call, with a warning', () => {
    const mapper = createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', providerTools: [], parallelToolCalls: false });
    const events = functionCallEvents([
      { callId: 'call_1', name: 'f', fragments: ['{"a":1}'] },
      { callId: 'call_2', name: 'g', fragments: ['{"b":', '2}'] },
    ]);
    const parts = [...events.flatMap((event) => mapper.push(event)), ...mapper.end()];
    expect(parts.filter((part) => 'id' in part && part.id === 'call_2')).toEqual([]);
    expect(ofType(parts, 'tool-call').map((part) => part.toolCall.id)).toEqual(['call_1']);
    expect(ofType(parts, 'warning')).toHaveLength(1);
  });
});
