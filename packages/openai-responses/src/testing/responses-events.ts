// Responses API payloads built in the shapes OpenAI sends (an `in_progress` → `completed`
// stream with `sequence_number`s, function calls whose arguments arrive in fragments), for
// tests of code that reads the Responses wire: the decoder here and the providers on it.

/** A Responses `response` object as these builders make it: the API's fields, `status` and `output` typed. */
export type ResponsesResponseObject = Record<string, unknown> & { status: string; output: unknown[] };

/** A Responses stream event as these builders make it: `type` plus the event's fields. */
export type ResponsesEventObject = Record<string, unknown> & { type: string };

const RESPONSE_ID = 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const MODEL = 'gpt-4.1-mini-2025-04-14';

/**
 * A `response` object with the given status and output items; `usage` is filled unless the
 * status is `in_progress`, and `extra` overrides any field (`error`, `incomplete_details`).
 */
export function responseObject(status: string, output: unknown[] = [], extra: Record<string, unknown> = {}): ResponsesResponseObject {
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
  };
}

let sequence = 0;
const seq = (): number => sequence++;

/** A `function_call` output item (id `fc_<callId>`). */
export function functionCallItem(callId: string, name: string, args: string, status: 'in_progress' | 'completed' | 'incomplete' = 'completed') {
  return { id: `fc_${callId}`, type: 'function_call', status, arguments: args, call_id: callId, name };
}

/**
 * The events of a streamed turn with one or more function calls, each call's arguments in
 * the given fragments, after an optional assistant message with `text`.
 */
export function functionCallEvents(calls: { callId: string; name: string; fragments: string[] }[], text = ''): ResponsesEventObject[] {
  const events: ResponsesEventObject[] = [
    { type: 'response.created', sequence_number: seq(), response: responseObject('in_progress') },
    { type: 'response.in_progress', sequence_number: seq(), response: responseObject('in_progress') },
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
  events.push({ type: 'response.completed', sequence_number: seq(), response: responseObject('completed', output) });
  return events;
}

/** The events of a `*.chunks.txt` recording: one JSON event per line, blank lines skipped. */
export function eventLines(text: string): ResponsesEventObject[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ResponsesEventObject);
}
