import type { ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { codeInterpreterResponse } from '../test/recorded-streams.ts';
import { functionCallItem, responseObject } from './testing/index.ts';
import { prepareResponsesTools } from './responses-tools.ts';
import { mapResponsesFinishReason } from './responses-finish-reason.ts';
import { mapResponsesResponse } from './responses-response.ts';

const codeInterpreter: ProviderTool = {
  type: 'provider',
  provider: 'openai',
  id: 'openai.code_interpreter',
  name: 'code_interpreter',
  config: { wireTool: { type: 'code_interpreter', container: { type: 'auto' } }, include: ['code_interpreter_call.outputs'] },
};
const { providerTools } = prepareResponsesTools([codeInterpreter], undefined);

describe('mapResponsesResponse', () => {
  it('maps the recorded code-interpreter response: provider-executed calls, text, annotations, usage', () => {
    const wire = codeInterpreterResponse();
    const { response: mapped, providerOutputs, annotations } = mapResponsesResponse(wire, { providerTools });
    const calls = mapped.toolCalls;
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call.providerExecuted).toBe(true);
      expect(call.name).toBe('code_interpreter');
      expect(call.id).toMatch(/^ci_/);
      expect(call.arguments).toEqual({ code: expect.any(String), containerId: expect.stringMatching(/^cntr_/) });
    }
    expect(providerOutputs.map((output) => output.item['type'])).toEqual(['code_interpreter_call', 'code_interpreter_call', 'code_interpreter_call']);
    expect(providerOutputs[0]?.item).toBe(wire.output[1]);
    expect(annotations).toEqual([expect.objectContaining({ type: 'container_file_citation', file_id: expect.stringMatching(/^cfile_/) })]);
    expect(mapped.providerMetadata?.['openai']?.['annotations']).toEqual(annotations);
    expect(mapped.message.providerMetadata?.['openai']?.['annotations']).toEqual(annotations);
    expect(mapped.text.length).toBeGreaterThan(50);
    expect(mapped.finishReason).toBe('stop');
    expect(mapped.usage).toEqual({ inputTokens: 2283, outputTokens: 1928, totalTokens: 4211, cachedInputTokens: 0, reasoningTokens: 1792 });
  });

  it('ignores items of provider tools that were not offered', () => {
    const { response: mapped, providerOutputs } = mapResponsesResponse(codeInterpreterResponse(), { providerTools: [] });
    expect(mapped.toolCalls).toEqual([]);
    expect(providerOutputs).toEqual([]);
  });

  it('maps function calls by call_id with parsed arguments', () => {
    const wire = responseObject('completed', [functionCallItem('call_1', 'get_weather', '{"city":"Paris"}'), functionCallItem('call_2', 'now', '')]);
    const { response: mapped } = mapResponsesResponse(wire, { providerTools: [] });
    expect(mapped.toolCalls).toEqual([
      { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_2', name: 'now', arguments: {} },
    ]);
    expect(mapped.finishReason).toBe('tool-calls');
  });

  it('gives a call with a call_id already used in the response, or with no id at all, an id of ours', () => {
    const { id: _id, call_id: _callId, ...anonymous } = functionCallItem('x', 'f', '{"a":3}');
    const wire = responseObject('completed', [functionCallItem('call_1', 'f', '{"a":1}'), functionCallItem('call_1', 'f', '{"a":2}'), anonymous]);
    const calls = mapResponsesResponse(wire, { providerTools: [] }).response.toolCalls;
    expect(calls.map((call) => call.arguments)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(calls[0]?.id).toBe('call_1');
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    for (const call of calls) expect(call.id).toMatch(/^call_/);
  });

  it('reports length for an incomplete response and marks the unfinished call invalid', () => {
    const wire = responseObject('incomplete', [functionCallItem('call_1', 'write', '{"text":"Once', 'incomplete')], {
      incomplete_details: { reason: 'max_output_tokens' },
    });
    const { response: mapped } = mapResponsesResponse(wire, { providerTools: [] });
    expect(mapped.finishReason).toBe('length');
    expect(mapped.toolCalls[0]?.invalid?.rawArguments).toBe('{"text":"Once');
  });

  it('maps refusals and reasoning summaries', () => {
    const wire = responseObject('completed', [
      { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user asks for X.' }] },
      { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot help.' }] },
    ]);
    const { response: mapped } = mapResponsesResponse(wire, { providerTools: [] });
    expect(mapped.refusal).toBe('I cannot help.');
    expect(mapped.reasoning).toBe('The user asks for X.');
  });
});

describe('mapResponsesFinishReason', () => {
  it('maps status and incomplete reasons', () => {
    expect(mapResponsesFinishReason({ status: 'completed', hasClientToolCalls: false })).toBe('stop');
    expect(mapResponsesFinishReason({ status: 'completed', hasClientToolCalls: true })).toBe('tool-calls');
    expect(mapResponsesFinishReason({ status: 'incomplete', incompleteReason: 'max_output_tokens', hasClientToolCalls: true })).toBe('length');
    expect(mapResponsesFinishReason({ status: 'incomplete', incompleteReason: 'content_filter', hasClientToolCalls: false })).toBe('content-filter');
    expect(mapResponsesFinishReason({ status: 'failed', hasClientToolCalls: false })).toBe('error');
  });
});

describe('mapResponsesResponse with parallelToolCalls: false', () => {
  it('keeps only the first function call, with a warning', () => {
    const wire = responseObject('completed', [functionCallItem('call_1', 'f', '{}'), functionCallItem('call_2', 'g', '{}')]);
    const { response: mapped } = mapResponsesResponse(wire, { providerTools: [], parallelToolCalls: false });
    expect(mapped.toolCalls.map((call) => call.id)).toEqual(['call_1']);
    expect(mapped.warnings).toHaveLength(1);
  });
});
