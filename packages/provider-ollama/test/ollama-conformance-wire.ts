// Ollama's /api/chat wire format for core's provider conformance suite: NDJSON chunks
// (content pieces, tool calls with object arguments, a final chunk with done_reason and the
// eval counts), one JSON answer when stream is false, `{ "error": "…" }` bodies on failure,
// and /api/show with the model's capabilities, as Ollama's API documentation shows them.
import type { ConformanceScenario, ConformanceWire, WireReply } from '@toolwire/core/testing';

const CREATED_AT = '2026-11-20T10:00:00.000000Z';

function show(): WireReply {
  return {
    status: 200,
    body: JSON.stringify({
      modelfile: 'FROM qwen3:0.6b',
      parameters: 'temperature 0.6',
      template: '{{ .Prompt }}',
      details: { format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '751.63M', quantization_level: 'Q4_K_M' },
      model_info: { 'general.architecture': 'qwen3' },
      capabilities: ['completion', 'tools'],
      modified_at: CREATED_AT,
    }),
  };
}

function final(model: string, scenario: Exclude<ConformanceScenario, { type: 'error' }>): Record<string, unknown> {
  return {
    model,
    created_at: CREATED_AT,
    done: true,
    done_reason: scenario.type === 'text' && scenario.finish === 'length' ? 'length' : 'stop',
    total_duration: 1_000_000,
    load_duration: 100_000,
    prompt_eval_count: scenario.usage.inputTokens,
    prompt_eval_duration: 10_000,
    eval_count: scenario.usage.outputTokens,
    eval_duration: 20_000,
  };
}

function toolCalls(scenario: Extract<ConformanceScenario, { type: 'tool-calls' }>): unknown[] {
  return scenario.calls.map((call, index) => {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      // Ollama sends objects; text it could not parse reaches clients as the string.
      args = call.arguments;
    }
    return { id: `conf${index}`, function: { index, name: call.name, arguments: args } };
  });
}

export const ollamaConformanceWire: ConformanceWire = {
  isStream: (request) => request.path === '/api/chat' && (request.body as { stream?: unknown } | undefined)?.stream !== false,
  render(scenario, { stream, request }): WireReply {
    if (request.path === '/api/show') return show();
    if (scenario.type === 'error') return { status: scenario.status, body: JSON.stringify({ error: scenario.message }) };
    const named = (request.body as { model?: unknown } | undefined)?.model;
    const model = typeof named === 'string' ? named : 'qwen3:0.6b';
    const message =
      scenario.type === 'text' ? { role: 'assistant', content: scenario.text } : { role: 'assistant', content: '', tool_calls: toolCalls(scenario) };
    if (!stream) return { status: 200, body: JSON.stringify({ ...final(model, scenario), message }) };
    const lines: unknown[] = [];
    if (scenario.type === 'text') {
      let start = 0;
      for (let index = 1; index <= scenario.text.length; index++) {
        if (index === scenario.text.length || scenario.text[index] === ' ') {
          lines.push({ model, created_at: CREATED_AT, message: { role: 'assistant', content: scenario.text.slice(start, index) }, done: false });
          start = index;
        }
      }
    } else {
      lines.push({ model, created_at: CREATED_AT, message, done: false });
    }
    lines.push({ ...final(model, scenario), message: { role: 'assistant', content: '' } });
    return { status: 200, headers: { 'content-type': 'application/x-ndjson' }, body: lines.map((line) => `${JSON.stringify(line)}\n`).join('') };
  },
};
