import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { textEvents, toolCallEvents } from '../../../../packages/provider-chatgpt-oauth/test/helpers/backend-server.ts';
import { copyTree, hostileValue, Large, stringifyWithRawLiterals, withOwnKey } from './hostile-values.ts';

/** The three dialects the gateway reads from upstreams. */
export type Dialect = 'openai' | 'ollama' | 'responses';

/** One message of an upstream answer: a JSON payload, or a raw line written as is. */
export type UpstreamEvent = { json: unknown } | { raw: string };

/** The recorded Chat Completions streams of provider-openai's fixtures (real traffic from OpenAI-compatible servers). */
function recordedChunks(file: string): UpstreamEvent[] {
  const text = readFileSync(new URL(`../../../../packages/provider-openai/src/__fixtures__/${file}`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => ({ json: JSON.parse(line) as unknown }));
}

const base = { id: 'chatcmpl-up1', object: 'chat.completion.chunk', created: 1_764_664_568, model: 'gpt-4o-mini', system_fingerprint: 'fp_1' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null): UpstreamEvent => ({ json: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
const usage: UpstreamEvent = { json: { ...base, choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } } };

/** OpenAI Chat Completions streams, as OpenAI writes them (two calls, fragments of arguments) and as recorded. */
const OPENAI_STREAMS: readonly UpstreamEvent[][] = [
  [chunk({ role: 'assistant', content: '', refusal: null }), chunk({ content: 'Hel' }), chunk({ content: 'lo.' }), chunk({}, 'stop'), usage, { raw: '[DONE]' }],
  [
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_a1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_b2', type: 'function', function: { name: 'calculate', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '{"expression":"6*7"}' } }] }),
    chunk({}, 'tool_calls'),
    usage,
    { raw: '[DONE]' },
  ],
  [...recordedChunks('xai-tool-call.chunks.txt'), { raw: '[DONE]' }],
  [...recordedChunks('groq-tool-call.chunks.txt'), { raw: '[DONE]' }],
  [...recordedChunks('deepseek-tool-call.chunks.txt'), { raw: '[DONE]' }],
];

const OPENAI_COMPLETIONS: readonly UpstreamEvent[][] = [
  [
    {
      json: {
        id: 'chatcmpl-up2',
        object: 'chat.completion',
        created: 1_764_664_568,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_a1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
            logprobs: null,
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
      },
    },
  ],
  [{ json: { id: 'chatcmpl-up3', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }] } }],
];

const ollamaLine = (message: Record<string, unknown>, done = false, extra: Record<string, unknown> = {}): UpstreamEvent => ({
  json: { model: 'qwen3:0.6b', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '', ...message }, done, ...extra },
});
const ollamaDone = ollamaLine({}, true, { done_reason: 'stop', total_duration: 4_883_583_458, prompt_eval_count: 26, eval_count: 282 });

/** Ollama NDJSON (streamed) and whole answers: arguments as objects, calls whole; call text for the text-only model. */
const OLLAMA_STREAMS: readonly UpstreamEvent[][] = [
  [ollamaLine({ content: 'Hel' }), ollamaLine({ content: 'lo.' }), ollamaDone],
  [ollamaLine({ tool_calls: [{ function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } }, { function: { index: 1, name: 'calculate', arguments: { expression: '6*7' } } }] }), ollamaDone],
  [ollamaLine({ thinking: 'Let me call it.' }), ollamaLine({ content: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' }), ollamaDone],
  [ollamaLine({ content: 'get_weather(city="Pa' }), ollamaLine({ content: 'ris")' }), ollamaDone],
];

/** Codex backend Responses streams (the provider-chatgpt-oauth stand-in's events). */
const RESPONSES_STREAMS: readonly UpstreamEvent[][] = [
  textEvents('Hello there.', { reasoning: 'Thinking briefly.' }).map((json) => ({ json })),
  toolCallEvents([
    { callId: 'call_r1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { callId: 'call_r2', name: 'calculate', arguments: '{"expression":"6*7"}' },
  ]).map((json) => ({ json })),
];

/** The model lists the upstreams give (`GET /v1/models`, Ollama's `GET /api/tags`), whole JSON. */
export const MODEL_LISTS: Record<'openai' | 'ollama', UpstreamEvent[]> = {
  openai: [
    {
      json: {
        object: 'list',
        data: [
          { id: 'gpt-4o-mini', object: 'model', created: 1_721_172_741, owned_by: 'system' },
          { id: 'o3-mini', object: 'model', created: 1_737_146_383, owned_by: 'system' },
        ],
      },
    },
  ],
  ollama: [
    {
      json: {
        models: [
          {
            name: 'qwen3:0.6b',
            model: 'qwen3:0.6b',
            modified_at: '2026-01-01T00:00:00Z',
            size: 522_653_767,
            digest: 'sha256:7df6b6e09427a769808717c0a93cadc4ae99ed4eb8bf5ca557c90846becea435',
            details: { parent_model: '', format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '751.63M', quantization_level: 'Q4_K_M' },
          },
          { name: 'gemma3:1b', model: 'gemma3:1b', modified_at: '2026-01-01T00:00:00Z', size: 815_319_791, digest: 'sha256:8648f39daa8f', details: { format: 'gguf', family: 'gemma3' } },
        ],
      },
    },
  ],
};

/** The unmutated answers a dialect's upstream gives, streamed or whole. */
export function baseAnswers(dialect: Dialect, stream: boolean): readonly UpstreamEvent[][] {
  switch (dialect) {
    case 'openai':
      return stream ? OPENAI_STREAMS : OPENAI_COMPLETIONS;
    case 'ollama':
      return stream ? OLLAMA_STREAMS : OLLAMA_STREAMS.map((events) => [mergeOllama(events)]);
    case 'responses':
      return RESPONSES_STREAMS;
    default: {
      const never: never = dialect;
      throw new Error(`unknown dialect ${String(never)}`);
    }
  }
}

/** A whole (non-streamed) Ollama answer from its stream: the final line with the message put together. */
function mergeOllama(events: UpstreamEvent[]): UpstreamEvent {
  let content = '';
  const calls: unknown[] = [];
  for (const event of events) {
    if (!('json' in event)) continue;
    const message = (event.json as { message?: { content?: string; tool_calls?: unknown[] } }).message;
    content += message?.content ?? '';
    calls.push(...(message?.tool_calls ?? []));
  }
  return ollamaLine({ content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, true, { done_reason: 'stop', prompt_eval_count: 26, eval_count: 282 });
}

/** Values an upstream's fields have carried, or could: indexes out of range, finish reasons nobody documents, non-string arguments. */
const upstreamValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileValue, weight: 3 },
  {
    arbitrary: fc.constantFrom<unknown>(
      1e9,
      -1,
      2 ** 53,
      0.5,
      'tool_calls',
      'function_call',
      'end_turn',
      'tool_use',
      'content_filter',
      'length',
      'eos',
      'unknown_reason',
      { city: 'Paris' },
      ['a'],
      { index: 0 },
      [{ index: 1e9, function: { arguments: 5 } }],
      [{ index: 0, function: { name: null, arguments: { a: 1 } } }],
      'response.completed',
      'response.failed',
      'response.incomplete',
      'function_call',
      { type: 'function_call', call_id: null, name: 'x', arguments: 7 },
      { prompt_tokens: 'many', completion_tokens: -5, total_tokens: 1e308 },
    ),
    weight: 2,
  },
);

/** One change to the sequence of events. */
export type EventMutation =
  | { kind: 'drop'; at: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'swap'; at: number; with: number }
  | { kind: 'replace'; at: number; path: number; value: unknown }
  /** Replaces a field the readers act on (`index`, `arguments`, `finish_reason`, …), where the event has one. */
  | { kind: 'replace-named'; at: number; path: number; value: unknown }
  | { kind: 'delete-field'; at: number; path: number }
  | { kind: 'insert-raw'; at: number; raw: string };

export const eventMutation: fc.Arbitrary<EventMutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), with: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), path: fc.nat(), value: upstreamValue }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('replace-named' as const), at: fc.nat(), path: fc.nat(), value: upstreamValue }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('delete-field' as const), at: fc.nat(), path: fc.nat() }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('insert-raw' as const),
      at: fc.nat(),
      raw: fc.oneof(fc.constantFrom('[DONE]', '', '{', 'null', '[]', '"text"', '{"error":{"message":"overloaded","type":"server_error"}}', '{"error":"model crashed"}', '<html>'), fc.string({ maxLength: 30 })),
    }),
    weight: 2,
  },
);

type Path = (string | number)[];

/** The fields the gateway's readers act on, in every dialect. */
const NAMED_FIELDS = new Set([
  'index', 'id', 'type', 'name', 'arguments', 'tool_calls', 'function', 'delta', 'content', 'role', 'finish_reason', 'choices', 'usage',
  'prompt_tokens', 'completion_tokens', 'message', 'done', 'done_reason', 'eval_count', 'thinking', 'call_id', 'item', 'item_id',
  'output_index', 'response', 'status', 'text', 'output', 'error', 'model', 'object', 'data', 'models',
]);

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length > 0) out.push(prefix);
  if (out.length > 300 || value instanceof Large) return out;
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...prefix, i], out));
  else if (typeof value === 'object' && value !== null) for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out);
  return out;
}

/** Applies event mutations to a copy of `events`. */
export function mutateEvents(events: readonly UpstreamEvent[], mutations: readonly EventMutation[]): UpstreamEvent[] {
  const out: UpstreamEvent[] = events.map((event) => ('json' in event ? { json: copyTree(event.json) } : event));
  for (const m of mutations) {
    if (out.length === 0) break;
    const at = m.at % out.length;
    switch (m.kind) {
      case 'drop':
        out.splice(at, 1);
        break;
      case 'duplicate': {
        const event = out[at]!;
        out.splice(at, 0, 'json' in event ? { json: copyTree(event.json) } : event);
        break;
      }
      case 'swap': {
        const other = m.with % out.length;
        [out[at], out[other]] = [out[other]!, out[at]!];
        break;
      }
      case 'replace':
      case 'replace-named':
      case 'delete-field': {
        const event = out[at]!;
        if (!('json' in event)) break;
        const all = pathsOf(event.json);
        const named = m.kind === 'replace-named' ? all.filter((path) => NAMED_FIELDS.has(String(path.at(-1)))) : all;
        const paths = named.length > 0 ? named : all;
        if (paths.length === 0) {
          if (m.kind !== 'delete-field') out[at] = { json: copyTree(m.value) };
          break;
        }
        const path = paths[m.path % paths.length]!;
        let parent = event.json as Record<string | number, unknown>;
        for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
        const key = path.at(-1)!;
        if (m.kind === 'delete-field') {
          if (Array.isArray(parent)) parent.splice(Number(key), 1);
          else Reflect.deleteProperty(parent, key);
        } else {
          // A copy: generated values are shared between cases, and a later mutation may change what it inserts.
          withOwnKey(parent, String(key), copyTree(m.value));
        }
        break;
      }
      case 'insert-raw':
        out.splice(at, 0, { raw: m.raw });
        break;
      default: {
        const never: never = m;
        throw new Error(`unknown mutation ${JSON.stringify(never)}`);
      }
    }
  }
  return out;
}

/** The events as the dialect frames them on the wire. */
export function frame(dialect: Dialect, stream: boolean, events: readonly UpstreamEvent[]): Buffer {
  const text = (event: UpstreamEvent): string => ('json' in event ? stringifyWithRawLiterals(copyTree(event.json, true)) : event.raw);
  if (!stream) return Buffer.from(events.map(text).join(''));
  switch (dialect) {
    case 'openai':
      return Buffer.from(events.map((event) => `data: ${text(event)}\n\n`).join(''));
    case 'ollama':
      return Buffer.from(events.map((event) => `${text(event)}\n`).join(''));
    case 'responses':
      return Buffer.from(
        events
          .map((event) => {
            const type = 'json' in event && typeof event.json === 'object' && event.json !== null ? (event.json as { type?: unknown }).type : undefined;
            return `${typeof type === 'string' ? `event: ${type}\n` : ''}data: ${text(event)}\n\n`;
          })
          .join(''),
      );
    default: {
      const never: never = dialect;
      throw new Error(`unknown dialect ${String(never)}`);
    }
  }
}

/** How the bytes are delivered: the status and headers, changes to the bytes, where the connection ends. */
export interface Delivery {
  status: number;
  contentType: 'right' | 'text/html' | 'application/json' | 'text/plain' | 'none' | 'application/x-ndjson' | 'text/event-stream';
  /** Replaces the whole body. */
  body: 'events' | 'html' | 'empty' | 'json-error' | 'text-error';
  /** Invalid UTF-8 put in at this fraction of the body. */
  invalidUtf8At: number | null;
  /** Where the body ends: all of it, cut cleanly at a fraction, or the connection reset at a fraction. */
  ending: { kind: 'whole' } | { kind: 'cut' | 'reset'; at: number };
  /** Fractions at which the body is split into separate writes. */
  splits: number[];
  retryAfter: string | null;
}

export const delivery: fc.Arbitrary<Delivery> = fc.record({
  status: fc.oneof({ arbitrary: fc.constant(200), weight: 12 }, { arbitrary: fc.constantFrom(201, 204, 301, 400, 401, 404, 413, 429, 500, 502, 503, 529), weight: 2 }),
  contentType: fc.oneof(
    { arbitrary: fc.constant('right' as const), weight: 8 },
    { arbitrary: fc.constantFrom('text/html' as const, 'application/json' as const, 'text/plain' as const, 'none' as const, 'application/x-ndjson' as const, 'text/event-stream' as const), weight: 2 },
  ),
  body: fc.oneof(
    { arbitrary: fc.constant('events' as const), weight: 12 },
    { arbitrary: fc.constantFrom('html' as const, 'empty' as const, 'json-error' as const, 'text-error' as const), weight: 2 },
  ),
  invalidUtf8At: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.double({ min: 0, max: 1, noNaN: true }), weight: 1 }),
  ending: fc.oneof(
    { arbitrary: fc.constant({ kind: 'whole' as const }), weight: 6 },
    { arbitrary: fc.record({ kind: fc.constantFrom('cut' as const, 'reset' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }), weight: 3 },
  ),
  splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
  retryAfter: fc.constantFrom(null, '1', '0', '-5', 'soon', '99999999999999999999', 'Wed, 21 Oct 2015 07:28:00 GMT'),
});

const RIGHT_TYPE: Record<Dialect, { stream: string; whole: string }> = {
  openai: { stream: 'text/event-stream', whole: 'application/json' },
  ollama: { stream: 'application/x-ndjson', whole: 'application/json; charset=utf-8' },
  responses: { stream: 'text/event-stream', whole: 'text/event-stream' },
};

/** What the stand-in writes: status, headers, the body in pieces, and whether the connection is reset after the last piece. */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  pieces: Buffer[];
  reset: boolean;
}

/** The answer one case describes: its mutated events framed, delivered as `delivery` says. */
export function answerFor(dialect: Dialect, stream: boolean, events: readonly UpstreamEvent[], how: Delivery): UpstreamAnswer {
  let body: Buffer;
  switch (how.body) {
    case 'events':
      body = frame(dialect, stream, events);
      break;
    case 'html':
      body = Buffer.from('<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n');
      break;
    case 'empty':
      body = Buffer.alloc(0);
      break;
    case 'json-error':
      body = Buffer.from(JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } }));
      break;
    case 'text-error':
      body = Buffer.from('upstream connect error or disconnect/reset before headers. reset reason: connection termination');
      break;
    default: {
      const never: never = how.body;
      throw new Error(`unknown body ${String(never)}`);
    }
  }
  if (how.invalidUtf8At !== null) {
    const at = Math.floor(how.invalidUtf8At * body.length);
    body = Buffer.concat([body.subarray(0, at), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xff]), body.subarray(at)]);
  }
  if (how.ending.kind !== 'whole') body = body.subarray(0, Math.floor(how.ending.at * body.length));
  const cuts = [...new Set(how.splits.map((f) => Math.floor(f * body.length)))].filter((n) => n > 0 && n < body.length).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, body.length]) {
    if (cut > from) pieces.push(body.subarray(from, cut));
    from = cut;
  }
  const headers: Record<string, string> = {};
  const type = how.contentType === 'right' ? RIGHT_TYPE[dialect][stream ? 'stream' : 'whole'] : how.contentType;
  if (type !== 'none') headers['content-type'] = type;
  if (how.retryAfter !== null && how.status === 429) headers['retry-after'] = how.retryAfter;
  return { status: how.status, headers, pieces, reset: how.ending.kind === 'reset' };
}
