import type { ConformanceScenario, ConformanceWire, WireReply } from '@toolwire/core/testing';
import { openAIErrorReply } from './openai-error-reply.ts';

/** Options of `responsesConformanceWire`. */
export interface ResponsesConformanceWireOptions {
  /** The Codex backend: answers `GET …/codex/models` with an empty catalog and always streams. */
  codex?: boolean;
}

function words(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let index = 1; index <= text.length; index++) {
    if (index === text.length || text.charCodeAt(index) === 32) {
      parts.push(text.slice(start, index));
      start = index;
    }
  }
  return parts;
}

function thirds(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size));
  return parts;
}

function usage(scenario: { usage: { inputTokens: number; outputTokens: number } }): Record<string, unknown> {
  const { inputTokens, outputTokens } = scenario.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((event) => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/**
 * The Responses wire format (OpenAI's `/v1/responses` and the Codex backend's
 * `/codex/responses`) for core's provider conformance suite: stream events and response
 * objects in the shapes the APIs send, and errors as `{ error: { message, type, code } }`.
 */
export function responsesConformanceWire(options: ResponsesConformanceWireOptions = {}): ConformanceWire {
  return {
    isStream(request) {
      if (options.codex === true) return request.method === 'POST';
      const body = request.body as { stream?: unknown } | undefined;
      return body?.stream === true;
    },
    render(scenario, { stream, request }): WireReply {
      if (options.codex === true && request.method === 'GET') return { status: 200, body: JSON.stringify({ models: [] }) };
      return stream ? streamed(scenario) : whole(scenario);
    },
  };
}

function outputItems(scenario: Exclude<ConformanceScenario, { type: 'error' }>): Record<string, unknown>[] {
  if (scenario.type === 'text') {
    return [{ id: 'msg_conf', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: scenario.text, annotations: [] }] }];
  }
  return scenario.calls.map((call, index) => ({ id: `fc_conf_${index}`, type: 'function_call', status: 'completed', call_id: call.id, name: call.name, arguments: call.arguments }));
}

function responseObject(scenario: Exclude<ConformanceScenario, { type: 'error' }>, output: Record<string, unknown>[]): Record<string, unknown> {
  const length = scenario.type === 'text' && scenario.finish === 'length';
  return {
    id: 'resp_conf',
    object: 'response',
    created_at: 1_760_000_000,
    model: 'conformance-model',
    status: length ? 'incomplete' : 'completed',
    incomplete_details: length ? { reason: 'max_output_tokens' } : null,
    error: null,
    output,
    usage: usage(scenario),
  };
}

function whole(scenario: ConformanceScenario): WireReply {
  if (scenario.type === 'error') return openAIErrorReply(scenario);
  return { status: 200, body: JSON.stringify(responseObject(scenario, outputItems(scenario))) };
}

function streamed(scenario: ConformanceScenario): WireReply {
  if (scenario.type === 'error') return openAIErrorReply(scenario);
  let sequence = 0;
  const events: Record<string, unknown>[] = [];
  const push = (event: Record<string, unknown>): void => {
    events.push({ ...event, sequence_number: sequence++ });
  };
  const inProgress = { ...responseObject(scenario, []), status: 'in_progress', usage: null };
  push({ type: 'response.created', response: inProgress });
  push({ type: 'response.in_progress', response: inProgress });
  const items = outputItems(scenario);
  items.forEach((item, index) => {
    if (item['type'] === 'message') {
      const text = scenario.type === 'text' ? scenario.text : '';
      push({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      push({ type: 'response.content_part.added', item_id: item['id'], output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of words(text)) push({ type: 'response.output_text.delta', item_id: item['id'], output_index: index, content_index: 0, delta, logprobs: [] });
      push({ type: 'response.output_text.done', item_id: item['id'], output_index: index, content_index: 0, text, logprobs: [] });
      push({ type: 'response.output_item.done', output_index: index, item });
      return;
    }
    const args = String(item['arguments']);
    push({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
    for (const delta of thirds(args)) push({ type: 'response.function_call_arguments.delta', item_id: item['id'], output_index: index, delta });
    push({ type: 'response.function_call_arguments.done', item_id: item['id'], output_index: index, arguments: args });
    push({ type: 'response.output_item.done', output_index: index, item });
  });
  const final = responseObject(scenario, items);
  push({ type: final['status'] === 'incomplete' ? 'response.incomplete' : 'response.completed', response: final });
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse(events) };
}
