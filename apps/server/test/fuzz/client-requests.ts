import fc from 'fast-check';
import type { Api } from './check-answer.ts';
import { copyTree, HOSTILE_NAMES, hostileValue, Large, stringifyWithRawLiterals, withOwnKey } from './hostile-values.ts';
import type { RawRequest } from './raw-exchange.ts';

/** The models the fuzzed gateway routes to the stand-in upstream (OpenAI, Ollama native, Ollama text-only). */
export const FUZZ_MODELS = ['openai/gpt-4o-mini', 'ollama/qwen3:0.6b', 'ollama/gemma3:1b'] as const;

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'], additionalProperties: false },
    strict: true,
  },
};
const IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * Valid requests in the shapes real clients send (openai-node, the Vercel AI SDK, LangChain,
 * the Agents SDK, Codex), each a starting point for mutation. `model` is filled in per case.
 */
export const CHAT_SEEDS: readonly Record<string, unknown>[] = [
  // openai-node, the plainest call.
  { messages: [{ role: 'user', content: 'Say hello.' }] },
  // openai-node streaming with tools and usage.
  { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Paris?' }], tools: [weather], tool_choice: 'auto', stream: true, stream_options: { include_usage: true } },
  // A replayed tool round trip.
  {
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc123', content: '{"temp":21}' },
    ],
    tools: [weather],
    parallel_tool_calls: false,
  },
  // Multi-part content with an image (openai-node, LangChain).
  {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: IMAGE, detail: 'low' } }] }],
    max_tokens: 50,
    temperature: 0.2,
  },
  // The Vercel AI SDK: a forced tool, strict schemas, developer message, seed, stop.
  {
    messages: [{ role: 'developer', content: 'You are terse.' }, { role: 'user', content: [{ type: 'text', text: 'Weather?' }] }],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: false } }],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    stream: true,
    stream_options: { include_usage: true },
    seed: 7,
    stop: ['\n\n'],
    max_completion_tokens: 100,
    top_p: 1,
  },
  // Server tools asked for by name (no parameters), with a JSON response format.
  {
    messages: [{ role: 'user', content: 'What is 6 * 7, and what time is it?' }],
    tools: [{ type: 'function', function: { name: 'calculate' } }, { type: 'function', function: { name: 'get_current_time' } }],
    response_format: { type: 'json_object' },
    user: 'u-1',
    metadata: { k: 'v' },
    store: false,
  },
  // A mixed turn: a client tool beside a server tool (the gateway runs one and hands back the other).
  { messages: [{ role: 'user', content: 'Weather in Paris, and 6 * 7?' }], tools: [weather, { type: 'function', function: { name: 'calculate' } }], tool_choice: 'auto' },
  // LangChain: a tool result as content parts, a named user, json_schema output.
  {
    messages: [
      { role: 'user', name: 'alice', content: 'Look it up.' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }, { id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{"q":"b"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'found a' }] },
      { role: 'tool', tool_call_id: 'call_2', content: 'found b' },
    ],
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { a: { type: 'string' } } }, strict: true } },
    stream: true,
  },
];

export const RESPONSES_SEEDS: readonly Record<string, unknown>[] = [
  // openai-node, the plainest call.
  { input: 'Say hello.' },
  // The Agents SDK: input items, function tools, streaming.
  {
    instructions: 'You are a helpful agent.',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] }],
    tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: weather.function.parameters, strict: true }],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    stream: true,
    store: true,
  },
  // A function call and its output, replayed as items (Codex without previous_response_id).
  {
    input: [
      { type: 'message', role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: 'call_r1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_r1', output: '{"temp":21}' },
    ],
    tools: [{ type: 'function', name: 'get_weather', parameters: weather.function.parameters, strict: false }],
    stream: true,
    reasoning: { effort: 'low', summary: 'auto' },
    include: ['reasoning.encrypted_content'],
  },
  // An image, output limits and a JSON schema format.
  {
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Describe it.' }, { type: 'input_image', image_url: IMAGE, detail: 'auto' }] }],
    max_output_tokens: 64,
    temperature: 0.5,
    text: { format: { type: 'json_schema', name: 'desc', schema: { type: 'object', properties: { d: { type: 'string' } } }, strict: true } },
  },
  // A continuation of a stored response (its id is filled in by the test), with server tools.
  {
    previous_response_id: 'PREVIOUS',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And 6 * 7?' }] }],
    tools: [{ type: 'function', name: 'calculate' }],
    store: true,
  },
];

type Path = (string | number)[];

/** Every path in a JSON tree (the root included), in a stable order. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = [], budget = { left: 400 }): Path[] {
  out.push(prefix);
  if (--budget.left <= 0) return out;
  if (value instanceof Large) return out;
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...prefix, i], out, budget));
  else if (typeof value === 'object' && value !== null) for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out, budget);
  return out;
}

function parentOf(root: unknown, path: Path): unknown {
  let node = root;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[step];
  return node;
}

/** One structural change at one place in the request. */
export type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'add-key'; at: number; key: string; value: unknown }
  | { kind: 'wrap'; at: number; depth: number; as: 'array' | 'object' };

const copy = (value: unknown): unknown => copyTree(value);

/** Applies one mutation to a copy of `request`; the path is `at` modulo the number of paths. */
export function mutate(request: unknown, mutation: Mutation): unknown {
  const root = { root: copy(request) };
  const paths = pathsOf(root.root).map((path) => ['root', ...path]);
  const path = paths[mutation.at % paths.length]!;
  const parent = parentOf(root, path) as Record<string | number, unknown>;
  const key = path.at(-1)!;
  const current = parent[key];
  switch (mutation.kind) {
    case 'replace':
      // A copy: generated values are shared between cases, and a later mutation may change what it inserts.
      withOwnKey(parent, String(key), copy(mutation.value));
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else if (key !== 'root') Reflect.deleteProperty(parent, key);
      break;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(Number(key), 0, copy(current));
      else if (Array.isArray(current)) current.push(...(copy(current) as unknown[]));
      else if (typeof current === 'string') parent[key] = current + current;
      break;
    case 'add-key':
      if (typeof current === 'object' && current !== null && !Array.isArray(current)) withOwnKey(current as Record<string, unknown>, mutation.key, copy(mutation.value));
      break;
    case 'wrap': {
      let value: unknown = current;
      for (let i = 0; i < mutation.depth; i++) value = mutation.as === 'array' ? [value] : { value };
      parent[key] = value;
      break;
    }
    default: {
      const never: never = mutation;
      throw new Error(`unknown mutation ${JSON.stringify(never)}`);
    }
  }
  return root.root;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('add-key' as const),
      at: fc.nat(),
      key: fc.oneof(fc.constantFrom(...HOSTILE_NAMES, 'type', 'role', 'content', 'name', 'arguments', 'id', 'index', 'stream', 'n', 'tools'), fc.string({ maxLength: 8 })),
      value: hostileValue,
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('wrap' as const), at: fc.nat(), depth: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 55, max: 70 })), as: fc.constantFrom<'array' | 'object'>('array', 'object') }), weight: 1 },
);

/** Changes to the bytes and headers around the JSON. */
export interface WireMutation {
  contentType: string | null;
  contentEncoding: string | null;
  /** Extra text where JSON allows (or does not allow) it. */
  text: 'none' | 'bom' | 'duplicate-key-first' | 'duplicate-key-last' | 'trailing-garbage' | 'truncate' | 'invalid-utf8' | 'lone-surrogate-escape' | 'empty' | 'not-json';
  /** Where a byte-level change lands, as a fraction of the body. */
  position: number;
  duplicateKey: string;
  duplicateValue: unknown;
  chunked: boolean;
  path: string;
  method: string;
  accept: string | null;
  /** The `Authorization` header: one of the configured keys (`FUZZ_KEYS`), or something else. */
  auth: string | null;
}

/** The keys the fuzzed gateway is configured with: one that may do anything, one limited to OpenAI models and `get_current_time` (always added). */
export const FUZZ_KEYS = { full: 'sk-fuzz-full-0123456789', limited: 'sk-fuzz-limited-0123456789' } as const;

const wireMutation: fc.Arbitrary<WireMutation> = fc.record({
  contentType: fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        null,
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=xyz',
        'application/json, text/plain',
        'application/vnd.api+json',
        'application/json;;;',
        '',
      ),
      weight: 2,
    },
  ),
  contentEncoding: fc.oneof({ arbitrary: fc.constant(null), weight: 9 }, { arbitrary: fc.constantFrom('gzip', 'br', 'identity', 'deflate', 'x-garbage'), weight: 1 }),
  text: fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        'bom' as const,
        'duplicate-key-first' as const,
        'duplicate-key-last' as const,
        'trailing-garbage' as const,
        'truncate' as const,
        'invalid-utf8' as const,
        'lone-surrogate-escape' as const,
        'empty' as const,
        'not-json' as const,
      ),
      weight: 3,
    },
  ),
  position: fc.double({ min: 0, max: 1, noNaN: true }),
  duplicateKey: fc.constantFrom('model', 'messages', 'input', 'stream', 'tools', 'tool_choice', '__proto__', 'constructor'),
  duplicateValue: hostileValue,
  chunked: fc.boolean(),
  path: fc.oneof({ arbitrary: fc.constant(''), weight: 9 }, { arbitrary: fc.constantFrom('/', '?x=1', '?stream=true', '%00', '/..%2f..%2fmodels', '/%2e%2e/x', '?__proto__[a]=1'), weight: 1 }),
  method: fc.oneof({ arbitrary: fc.constant('POST'), weight: 19 }, { arbitrary: fc.constantFrom('PUT', 'PATCH', 'GET', 'DELETE'), weight: 1 }),
  accept: fc.constantFrom(null, 'application/json', 'text/event-stream', '*/*', 'text/html'),
  auth: fc.oneof(
    { arbitrary: fc.constant('full'), weight: 12 },
    { arbitrary: fc.constant('limited'), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        null,
        'Bearer sk-wrong',
        'Basic c2stZnV6ejp4',
        'Bearer ',
        'Bearer',
        `bearer ${FUZZ_KEYS.full}`,
        `Bearer   ${FUZZ_KEYS.full}   `,
        `Bearer ${FUZZ_KEYS.full}\u00e9`,
        `Bearer ${'x'.repeat(8000)}`,
        `Bearer ${FUZZ_KEYS.full}, Bearer ${FUZZ_KEYS.limited}`,
      ),
      weight: 2,
    },
  ),
});

/** One generated client request: a seed, its model, the structural mutations, and the wire changes. */
export interface ClientCase {
  api: Api;
  seed: number;
  model: string;
  mutations: Mutation[];
  wire: WireMutation;
}

export const clientCase: fc.Arbitrary<ClientCase> = fc.record({
  api: fc.constantFrom<Api>('chat', 'responses'),
  seed: fc.nat(),
  model: fc.constantFrom(...FUZZ_MODELS),
  mutations: fc.array(mutation, { minLength: 0, maxLength: 4 }),
  wire: wireMutation,
});

function insertAt(body: Buffer, position: number, bytes: Buffer): Buffer {
  const at = Math.floor(position * body.length);
  return Buffer.concat([body.subarray(0, at), bytes, body.subarray(at)]);
}

/** The request a case describes, as bytes on the wire. */
export function buildRequest(testCase: ClientCase, previousResponseId: string): RawRequest {
  const seeds = testCase.api === 'chat' ? CHAT_SEEDS : RESPONSES_SEEDS;
  const seed = seeds[testCase.seed % seeds.length]!;
  let body: unknown = { model: testCase.model, ...(seed.previous_response_id === 'PREVIOUS' ? { ...seed, previous_response_id: previousResponseId } : seed) };
  for (const m of testCase.mutations) body = mutate(body, m);
  const { wire } = testCase;
  let text = stringifyWithRawLiterals(copyTree(body, true));
  const duplicate = `"${wire.duplicateKey}":${stringifyWithRawLiterals(copyTree(wire.duplicateValue, true))}`;
  let bytes: Buffer;
  switch (wire.text) {
    case 'none':
      bytes = Buffer.from(text);
      break;
    case 'bom':
      bytes = Buffer.from(`\ufeff${text}`);
      break;
    case 'duplicate-key-first':
      bytes = Buffer.from(text.startsWith('{') && text.length > 2 ? `{${duplicate},${text.slice(1)}` : text);
      break;
    case 'duplicate-key-last':
      bytes = Buffer.from(text.endsWith('}') && text.length > 2 ? `${text.slice(0, -1)},${duplicate}}` : text);
      break;
    case 'trailing-garbage':
      bytes = Buffer.from(`${text} {"x":1}`);
      break;
    case 'truncate':
      bytes = Buffer.from(text).subarray(0, Math.floor(wire.position * text.length));
      break;
    case 'invalid-utf8':
      bytes = insertAt(Buffer.from(text), wire.position, Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]));
      break;
    case 'lone-surrogate-escape':
      text = text.replace(/"(content|text|input|instructions)":"/, '"$1":"\\ud800\\udbff');
      bytes = Buffer.from(text);
      break;
    case 'empty':
      bytes = Buffer.alloc(0);
      break;
    case 'not-json':
      bytes = Buffer.from(`model=${testCase.model}&messages=hello`);
      break;
    default: {
      const never: never = wire.text;
      throw new Error(`unknown text mutation ${String(never)}`);
    }
  }
  const headers: Record<string, string> = {};
  if (wire.contentType !== null) headers['content-type'] = wire.contentType;
  if (wire.contentEncoding !== null) headers['content-encoding'] = wire.contentEncoding;
  if (wire.accept !== null) headers.accept = wire.accept;
  const auth = wire.auth === 'full' ? `Bearer ${FUZZ_KEYS.full}` : wire.auth === 'limited' ? `Bearer ${FUZZ_KEYS.limited}` : wire.auth;
  if (auth !== null) headers.authorization = auth;
  const route = testCase.api === 'chat' ? '/v1/chat/completions' : '/v1/responses';
  if (wire.method === 'GET') return { method: wire.method, path: `${route}${wire.path}`, headers };
  if (wire.chunked) headers['transfer-encoding'] = 'chunked';
  else headers['content-length'] = String(bytes.length);
  return { method: wire.method, path: `${route}${wire.path}`, headers, body: bytes };
}
