// Responses API payloads: the recorded code-interpreter run from src/__fixtures__, and
// function-call streams built in the shapes OpenAI sends (research/openai-compat.md §4).
import { readFileSync } from 'node:fs';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';

const fixtures = new URL('../src/__fixtures__/', import.meta.url);

/** The recorded stream events of a code-interpreter run (gpt-5-nano). */
export function codeInterpreterChunks(): ResponseStreamEvent[] {
  const text = readFileSync(new URL('openai-code-interpreter-tool.1.chunks.txt', fixtures), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ResponseStreamEvent);
}

/** The recorded non-streaming response of a code-interpreter run. */
export function codeInterpreterResponse(): Response {
  return JSON.parse(readFileSync(new URL('openai-code-interpreter-tool.1.json', fixtures), 'utf8')) as Response;
}

const RESPONSE_ID = 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const MODEL = 'gpt-4.1-mini-2025-04-14';

/** A Response object with the given status and output. */
export function response(status: Response['status'], output: unknown[] = [], extra: Partial<Response> = {}): Response {
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: 1_750_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage:
      status === 'in_progress'
        ? null
        : { input_tokens: 120, input_tokens_details: { cached_tokens: 100 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 8 }, total_tokens: 160 },
    ...extra,
  } as unknown as Response;
}

let sequence = 0;
const seq = (): number => sequence++;

/** A function call item. */
export function functionCallItem(callId: string, name: string, args: string, status: 'in_progress' | 'completed' | 'incomplete' = 'completed') {
  return { id: `fc_${callId}`, type: 'function_call', status, arguments: args, call_id: callId, name };
}

/** The events of a streamed turn with one or more function calls (arguments in fragments). */
export function functionCallEvents(calls: { callId: string; name: string; fragments: string[] }[], text = ''): ResponseStreamEvent[] {
  const events: unknown[] = [
    { type: 'response.created', sequence_number: seq(), response: response('in_progress') },
    { type: 'response.in_progress', sequence_number: seq(), response: response('in_progress') },
  ];
  let outputIndex = 0;
  const output: unknown[] = [];
  if (text !== '') {
    const item = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
    events.push({ type: 'response.output_item.added', sequence_number: seq(), output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
    events.push({ type: 'response.output_text.delta', sequence_number: seq(), item_id: 'msg_1', output_index: outputIndex, content_index: 0, delta: text, logprobs: [] });
    events.push({ type: 'response.output_item.done', sequence_number: seq(), output_index: outputIndex, item });
    output.push(item);
    outputIndex++;
  }
  for (const call of calls) {
    const args = call.fragments.join('');
    const done = functionCallItem(call.callId, call.name, args);
    events.push({ type: 'response.output_item.added', sequence_number: seq(), output_index: outputIndex, item: { ...done, status: 'in_progress', arguments: '' } });
    for (const delta of call.fragments) {
      events.push({ type: 'response.function_call_arguments.delta', sequence_number: seq(), item_id: done.id, output_index: outputIndex, delta });
    }
    events.push({ type: 'response.function_call_arguments.done', sequence_number: seq(), item_id: done.id, output_index: outputIndex, arguments: args });
    events.push({ type: 'response.output_item.done', sequence_number: seq(), output_index: outputIndex, item: done });
    output.push(done);
    outputIndex++;
  }
  events.push({ type: 'response.completed', sequence_number: seq(), response: response('completed', output) });
  return events as ResponseStreamEvent[];
}
