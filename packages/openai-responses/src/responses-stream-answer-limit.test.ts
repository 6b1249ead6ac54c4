import { AnswerLimit, AnswerTooLargeError } from '@toolwire/core';
import { toToolCall } from '@toolwire/core/provider';
import { describe, expect, it } from 'vitest';
import type { ResponsesCallMapping } from './responses-call-mapping.ts';
import { prepareResponsesTools } from './responses-tools.ts';
import { createResponsesStreamDecoder } from './responses-stream.ts';
import type { ResponsesStreamPart } from './responses-stream.ts';
import { functionCallEvents, responseObject } from './testing/index.ts';
import { codeInterpreter } from '../test/code-interpreter-tool.ts';

const SETTINGS = { chars: 'maxAnswerChars', toolCalls: 'maxToolCallsPerAnswer' };

/** Every call's start waits for its end, as the Codex mapping does for `shell`. */
const deferAll: ResponsesCallMapping = {
  userName: (wireName) => wireName,
  defer: () => true,
  toToolCall: (call) => toToolCall(call),
  toWireCall: (toolCall) => ({ callId: toolCall.id, name: toolCall.name, arguments: JSON.stringify(toolCall.arguments) }),
};

function decode(events: Record<string, unknown>[], limit: AnswerLimit, callMapping?: ResponsesCallMapping): ResponsesStreamPart[] {
  const decoder = createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', answerLimit: limit, ...(callMapping ? { callMapping } : {}) });
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

function error(run: () => unknown): unknown {
  try {
    run();
  } catch (caught) {
    return caught;
  }
  return undefined;
}

describe('createResponsesStreamDecoder with an answer limit', () => {
  it('counts a deferred call once: its arguments and the call itself', () => {
    const args = `{"command":["echo","${'x'.repeat(60)}"]}`;
    const events = functionCallEvents([{ callId: 'call_1', name: 'shell', fragments: [args.slice(0, 20), args.slice(20)] }]);
    // Exactly the call's arguments and one call: counted twice, either bound would be crossed.
    const limit = new AnswerLimit({ maxChars: args.length, maxToolCalls: 1, settings: SETTINGS });
    const parts = decode(events, limit, deferAll);
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('counts a deferred call finished at response.completed (no done item) once', () => {
    const args = '{"a":"' + 'y'.repeat(40) + '"}';
    const events = functionCallEvents([{ callId: 'call_1', name: 'shell', fragments: [args] }]).filter((event) => event['type'] !== 'response.output_item.done');
    const limit = new AnswerLimit({ maxChars: args.length, maxToolCalls: 1, settings: SETTINGS });
    expect(decode(events, limit, deferAll).filter((part) => part.type === 'tool-call')).toHaveLength(1);
  });

  it('still stops deferred calls past the bounds', () => {
    const events = functionCallEvents([
      { callId: 'call_1', name: 'shell', fragments: ['{}'] },
      { callId: 'call_2', name: 'shell', fragments: ['{}'] },
    ]);
    const caught = error(() => decode(events, new AnswerLimit({ maxChars: 0, maxToolCalls: 1, settings: SETTINGS }), deferAll));
    expect(AnswerTooLargeError.isInstance(caught) && caught.limit).toBe('tool-calls');
    const long = functionCallEvents([{ callId: 'call_1', name: 'shell', fragments: ['{"a":"', 'z'.repeat(100), '"}'] }]);
    const tooLong = error(() => decode(long, new AnswerLimit({ maxChars: 100, maxToolCalls: 0, settings: SETTINGS }), deferAll));
    expect(AnswerTooLargeError.isInstance(tooLong) && tooLong.limit).toBe('chars');
  });

  it('counts the arguments a deferred call gets only in its done item', () => {
    const args = '{"a":"' + 'w'.repeat(200) + '"}';
    const events = functionCallEvents([{ callId: 'call_1', name: 'shell', fragments: [] }]).map((event) =>
      event['type'] === 'response.output_item.done' ? { ...event, item: { ...(event['item'] as Record<string, unknown>), arguments: args } } : event,
    );
    const caught = error(() => decode(events, new AnswerLimit({ maxChars: 100, maxToolCalls: 0, settings: SETTINGS }), deferAll));
    expect(AnswerTooLargeError.isInstance(caught) && caught.limit).toBe('chars');
    const parts = decode(events, new AnswerLimit({ maxChars: args.length, maxToolCalls: 1, settings: SETTINGS }), deferAll);
    expect(parts.filter((part) => part.type === 'tool-call')).toMatchObject([{ toolCall: { arguments: { a: 'w'.repeat(200) } } }]);
  });

  it("counts a provider tool's done item (its outputs), held for the provider output", () => {
    const code = 'print(1)';
    const done = { id: 'ci_1', type: 'code_interpreter_call', status: 'completed', code, container_id: 'cntr_1', outputs: [{ type: 'logs', logs: 'l'.repeat(5000) }] };
    const events: Record<string, unknown>[] = [
      { type: 'response.created', response: responseObject('in_progress') },
      { type: 'response.output_item.added', output_index: 0, item: { ...done, status: 'in_progress', code: '', outputs: null } },
      { type: 'response.code_interpreter_call_code.delta', item_id: 'ci_1', output_index: 0, delta: code },
      { type: 'response.output_item.done', output_index: 0, item: done },
      { type: 'response.completed', response: responseObject('completed', [done]) },
    ];
    const decoder = (limit: AnswerLimit): ReturnType<typeof createResponsesStreamDecoder> =>
      createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', answerLimit: limit, providerTools: prepareResponsesTools([codeInterpreter], undefined).providerTools });
    const run = (limit: AnswerLimit): ResponsesStreamPart[] => {
      const d = decoder(limit);
      return [...events.flatMap((event) => d.push(event)), ...d.end()];
    };
    const caught = error(() => run(new AnswerLimit({ maxChars: 4000, maxToolCalls: 0, settings: SETTINGS })));
    expect(AnswerTooLargeError.isInstance(caught) && caught.limit).toBe('chars');
    expect(run(new AnswerLimit({ maxChars: 6000, maxToolCalls: 1, settings: SETTINGS })).at(-1)).toMatchObject({ type: 'finish' });
  });

  it('counts reasoning items kept for replay (their encrypted content), which no delta carries', () => {
    const item = (i: number): Record<string, unknown> => ({ id: `rs_${i}`, type: 'reasoning', summary: [], encrypted_content: 'e'.repeat(1000) });
    const events: Record<string, unknown>[] = [{ type: 'response.created', response: responseObject('in_progress') }];
    for (let i = 0; i < 20; i++) events.push({ type: 'response.output_item.done', output_index: i, item: item(i) });
    const caught = error(() => decode(events, new AnswerLimit({ maxChars: 10_000, maxToolCalls: 0, settings: SETTINGS })));
    expect(AnswerTooLargeError.isInstance(caught) && caught.limit).toBe('chars');
  });

  it('counts a reasoning summary once when it streamed and came again in the done item', () => {
    const summary = 's'.repeat(600);
    const events: Record<string, unknown>[] = [
      { type: 'response.created', response: responseObject('in_progress') },
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
      { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: summary },
      { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: summary }], encrypted_content: 'e'.repeat(100) } },
      { type: 'response.completed', response: responseObject('completed', []) },
    ];
    const parts = decode(events, new AnswerLimit({ maxChars: 1000, maxToolCalls: 0, settings: SETTINGS }));
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
  });
});
