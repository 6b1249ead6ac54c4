// Regression tests for what responses-hostile.fuzz.test.ts and provider-openai's upstream fuzzer
// found, each with its shrunk counterexample.
import { describe, expect, it } from 'vitest';
import { prepareResponsesTools } from './responses-tools.ts';
import { createResponsesStreamDecoder } from './responses-stream.ts';
import type { ResponsesStreamPart } from './responses-stream.ts';
import { mapResponsesResponse } from './responses-response.ts';
import { mapResponsesUsage } from './responses-usage.ts';
import { responseObject } from './testing/index.ts';
import { codeInterpreter } from '../test/code-interpreter-tool.ts';

const { providerTools } = prepareResponsesTools([codeInterpreter], undefined);

function decode(events: unknown[]): ResponsesStreamPart[] {
  const decoder = createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', providerTools });
  return [...events.flatMap((event) => decoder.push(event as never)), ...decoder.end()];
}

const ciItem = (id: unknown) => ({ id, type: 'code_interpreter_call', status: 'completed', code: 'print(1)', container_id: 'cntr_1', outputs: [] });

describe('Responses events a server should not send', () => {
  it('skips an event that is not an object (was: TypeError on `data: null`)', () => {
    const parts = decode([null, 5, [], { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, delta: 'Hi' }, { type: 'response.completed', response: responseObject('completed') }]);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'finish']);
  });

  it('gives a code interpreter call without an item id, or with one used before, an id of its own (was: id "")', () => {
    const parts = decode([
      { type: 'response.output_item.added', output_index: 0, item: ciItem(0) },
      { type: 'response.output_item.added', output_index: 1, item: ciItem('ci_1') },
      { type: 'response.output_item.added', output_index: 1, item: ciItem('ci_1') },
      { type: 'response.completed', response: responseObject('completed') },
    ]);
    const starts = parts.flatMap((part) => (part.type === 'tool-call-start' ? [part.id] : []));
    expect(starts).toHaveLength(2);
    expect(starts[0]).toMatch(/^call_/u);
    expect(starts[1]).toBe('ci_1');
  });

  it('maps such calls of a whole response to distinct, non-empty ids', () => {
    const { response, providerOutputs } = mapResponsesResponse(responseObject('completed', [ciItem(null), ciItem('ci_1'), ciItem('ci_1')]), { providerTools });
    const ids = response.toolCalls.map((call) => call.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => id !== '')).toBe(true);
    expect(providerOutputs.map((output) => output.toolCallId)).toEqual(ids);
  });

  it('reads a negative token count as missing (was: cachedInputTokens -5e-324)', () => {
    expect(mapResponsesUsage({ input_tokens: -1, output_tokens: 2, input_tokens_details: { cached_tokens: -5e-324 }, output_tokens_details: { reasoning_tokens: -3 } })).toEqual({
      inputTokens: 0,
      outputTokens: 2,
      totalTokens: 2,
    });
  });
});
