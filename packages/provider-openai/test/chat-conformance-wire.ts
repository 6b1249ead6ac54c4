// The Chat Completions wire format for core's provider conformance suite, built from the
// chunk shapes in chat-wire.ts (role first, one delta per fragment, the finishing delta,
// then the usage chunk, then [DONE]).
import type { ConformanceWire, WireReply } from '@toolwire/core/testing';
import { openAIErrorReply } from '@toolwire/openai-responses/testing';
import { callArgs, callStart, chunk, completion, finishChunk, roleChunk } from './chat-wire.ts';

function usage(scenario: { usage: { inputTokens: number; outputTokens: number } }) {
  const { inputTokens, outputTokens } = scenario.usage;
  return { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
}

export const chatConformanceWire: ConformanceWire = {
  isStream: (request) => (request.body as { stream?: unknown } | undefined)?.stream === true,
  render(scenario, { stream }): WireReply {
    if (scenario.type === 'error') return openAIErrorReply(scenario);
    const finish = scenario.type === 'text' ? scenario.finish : 'tool_calls';
    if (!stream) {
      const message =
        scenario.type === 'text'
          ? { role: 'assistant' as const, content: scenario.text, refusal: null }
          : {
              role: 'assistant' as const,
              content: null,
              refusal: null,
              tool_calls: scenario.calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
            };
      return { status: 200, body: JSON.stringify({ ...completion(message, finish), usage: usage(scenario) }) };
    }
    const chunks: unknown[] = [roleChunk()];
    if (scenario.type === 'text') {
      let start = 0;
      for (let index = 1; index <= scenario.text.length; index++) {
        if (index === scenario.text.length || scenario.text[index] === ' ') {
          chunks.push(chunk({ content: scenario.text.slice(start, index) }));
          start = index;
        }
      }
    } else {
      scenario.calls.forEach((call, index) => {
        chunks.push(callStart(index, call.id, call.name));
        const size = Math.max(1, Math.ceil(call.arguments.length / 3));
        for (let at = 0; at < call.arguments.length; at += size) chunks.push(callArgs(index, call.arguments.slice(at, at + size)));
      });
    }
    chunks.push(finishChunk(finish), { ...chunk({}), choices: [], usage: usage(scenario) });
    const body = chunks.map((value) => `data: ${JSON.stringify(value)}\n\n`).join('') + 'data: [DONE]\n\n';
    return { status: 200, headers: { 'content-type': 'text/event-stream' }, body };
  },
};
