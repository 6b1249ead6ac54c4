// Fuzzed MCP servers: valid answers to initialize, tools/list and tools/call, then mutated
// (wrong types at any path, fields dropped, duplicated or added), mixed with stray
// messages, notifications, batches, garbage bytes and torn frames.
import fc from 'fast-check';
import type { Frame, HttpStyle, McpScenario } from './frames.ts';

/** Values a field should never hold: every JSON type, edge numbers, odd strings, prototype keys. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    '',
    ' ',
    'x',
    '__proto__',
    'constructor',
    'toString',
    '\u0000',
    '\ud800',
    'é😀\u202e',
    'a'.repeat(5000),
    [],
    {},
    [null],
    [[[[]]]],
    { type: 'text' },
    { type: 'object' },
    { $ref: '#' },
    { $ref: '#/nowhere' },
  ),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as unknown),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 3 }),
);

const UNKNOWN_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'extra', '_meta', 'type', 'name', 'content', 'isError', 'jsonrpc'];

type Mutation = { at: number; op: 'replace' | 'delete' | 'add' | 'duplicate'; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('replace', 'replace', 'delete', 'add', 'duplicate'),
  key: fc.constantFrom(...UNKNOWN_KEYS),
  value: oddValue,
});

type Path = (string | number)[];

function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item: unknown, i) => paths(item, [...at, i], out));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) paths(item, [...at, key], out);
  return out;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // `__proto__` as a property of its own, as JSON.parse makes it.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `base` with the mutations applied at the paths they pick (a copy; `base` is left alone). */
export function applyMutations(base: unknown, mutations: readonly Mutation[]): unknown {
  let root = structuredClone(base);
  for (const original of mutations) {
    // Values are fast-check's constants, shared between runs: each use gets its own copy.
    const m = { ...original, value: structuredClone(original.value) };
    const all = paths(root);
    const path = all[m.at % all.length] as Path;
    if (path.length === 0) {
      if (m.op === 'replace') root = m.value;
      else if (m.op === 'add' && typeof root === 'object' && root !== null && !Array.isArray(root)) setOwn(root as Record<string, unknown>, m.key, m.value);
      continue;
    }
    const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root) as Record<string | number, unknown>;
    const key = path[path.length - 1] as string | number;
    const node = parent[key];
    switch (m.op) {
      case 'replace':
        if (Array.isArray(parent)) parent[key as number] = m.value;
        else setOwn(parent, key as string, m.value);
        break;
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else Reflect.deleteProperty(parent, key);
        break;
      case 'add':
        if (typeof node === 'object' && node !== null && !Array.isArray(node)) setOwn(node as Record<string, unknown>, m.key, m.value);
        break;
      case 'duplicate':
        if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(node));
        else if (Array.isArray(node) && node.length > 0) node.push(structuredClone(node[0]));
        break;
      default: {
        const unknown: never = m.op;
        throw new Error(String(unknown));
      }
    }
  }
  return root;
}

/** `base` as it is, or (`weight` in 2 + `weight`) with a few mutations. */
export function mutated(base: unknown, weight = 3): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant(base) }, { weight, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((m) => applyMutations(base, m)) });
}

const INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: { listChanged: true }, logging: {} },
  serverInfo: { name: 'fuzz', version: '1.0.0' },
  instructions: 'Fuzzed.',
};

const TOOLS = [
  { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  {
    name: 'typed',
    title: 'Typed',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: [] },
    outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  },
  { name: 'annotated', inputSchema: { type: 'object' }, annotations: { title: 'Annotated', readOnlyHint: true, destructiveHint: false, openWorldHint: true } },
  { name: 'ns.read-file', description: 'Reads.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false }, _meta: { x: 1 } },
];

const BLOCKS = [
  { type: 'text', text: 'hello' },
  { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
  { type: 'audio', data: 'aGk=', mimeType: 'audio/wav' },
  { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'file text' } },
  { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAEC' } },
  { type: 'resource_link', uri: 'file:///b.txt', name: 'b', mimeType: 'text/plain', annotations: { audience: ['user'] } },
];

/** A valid `tools/call` result (every kind of content block, structured content, isError), mutated. */
export const callResult: fc.Arbitrary<unknown> = fc
  .record({
    content: fc.subarray(BLOCKS),
    structured: fc.option(fc.constantFrom({ n: 1 }, { n: 'one' }, {}), { nil: undefined }),
    isError: fc.option(fc.boolean(), { nil: undefined }),
    legacy: fc.boolean(),
  })
  .chain(({ content, structured, isError, legacy }) =>
    mutated(
      legacy && structured === undefined
        ? { toolResult: { ok: true } }
        : { content, ...(structured === undefined ? {} : { structuredContent: structured }), ...(isError === undefined ? {} : { isError }) },
    ),
  );

/** A server's unrequested messages: notifications, requests of its own, answers to nothing, batches. */
const noise: fc.Arbitrary<Frame> = fc.oneof(
  fc.constantFrom<Frame>(
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2 } } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: {}, progress: 'x' } } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: 'x' } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { a: 1 } } } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'nonsense' } } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '$ID' } } },
    { kind: 'message', message: { jsonrpc: '2.0', method: 'notifications/unknown' } },
    { kind: 'message', message: { jsonrpc: '2.0', id: 'srv-1', method: 'ping' } },
    { kind: 'message', message: { jsonrpc: '2.0', id: 'srv-2', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } },
    { kind: 'message', message: { jsonrpc: '2.0', id: 'srv-3', method: 'roots/list' } },
    { kind: 'message', message: { jsonrpc: '2.0', id: 'srv-4', method: 'elicitation/create', params: {} } },
    { kind: 'message', message: { jsonrpc: '2.0', id: 987_654, result: {} } },
    { kind: 'message', message: { jsonrpc: '2.0', id: '$ID', error: { code: -32000, message: 'early' } } },
    { kind: 'message', message: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } },
    { kind: 'message', message: { jsonrpc: '1.0', id: '$ID', result: {} } },
    { kind: 'message', message: { id: '$ID', result: {} } },
    { kind: 'message', message: [{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, { jsonrpc: '2.0', id: 987_655, result: {} }] },
    { kind: 'message', message: [] },
    { kind: 'message', message: 'just a string' },
    { kind: 'message', message: 42 },
    { kind: 'message', message: null },
    { kind: 'raw', base64: Buffer.from('not json at all\n').toString('base64') },
    { kind: 'raw', base64: Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]).toString('base64') },
    { kind: 'raw', base64: Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\xff\xfe"}}\n', 'latin1').toString('base64') },
    { kind: 'raw', base64: Buffer.from('\n\n\r\n   \n').toString('base64') },
    { kind: 'raw', base64: Buffer.from('{"jsonrpc":"2.0",').toString('base64') },
    { kind: 'raw', base64: Buffer.from('\u0000\u0001\u0002\n').toString('base64') },
  ),
  fc.uint8Array({ maxLength: 40 }).map((bytes): Frame => ({ kind: 'raw', base64: Buffer.from(bytes).toString('base64') })),
  fc
    .record({ id: oddValue, result: callResult })
    .map(({ id, result }): Frame => ({ kind: 'message', message: { jsonrpc: '2.0', id, result } })),
);

// Noise that does not answer the request itself (its id is not the request's).
const sideNoise = noise.filter((frame) => !JSON.stringify(frame).includes('"$ID"'));

/** Up to `max` frames of `from`, none half the time: each request noisy would end most sessions at the first. */
function noisy(from: fc.Arbitrary<Frame>, max: number): fc.Arbitrary<Frame[]> {
  return fc.oneof(fc.constant<Frame[]>([]), fc.array(from, { minLength: 1, maxLength: max }));
}

/**
 * The frames answering one request: noise, then (usually) the answer, maybe more noise after
 * it. `hostile`: any noise and often no valid answer (the tool call); otherwise side noise
 * only, and rarely no answer (initialize and listing, so that most sessions get to calls).
 */
function answering(result: fc.Arbitrary<unknown>, hostile: boolean): fc.Arbitrary<Frame[]> {
  const answer: fc.Arbitrary<Frame> = fc.oneof(
    { weight: hostile ? 12 : 60, arbitrary: result.map((value): Frame => ({ kind: 'answer', result: value })) },
    { weight: 1, arbitrary: fc.record({ code: oddValue, message: oddValue, data: oddValue }).map((error): Frame => ({ kind: 'error', error })) },
    { weight: 1, arbitrary: fc.constantFrom<Frame>({ kind: 'error', error: { code: -32602, message: 'Unknown tool' } }, { kind: 'error', error: 'not an object' }) },
    { weight: 1, arbitrary: fc.record({ result, keep: fc.nat({ max: 200 }) }).map(({ result: value, keep }): Frame => ({ kind: 'truncated', result: value, keep })) },
    { weight: 1, arbitrary: fc.constant<Frame>({ kind: 'exit' }) },
  );
  const before = hostile ? noise : sideNoise;
  return fc
    .tuple(noisy(before, 3), answer, noisy(noise, 2), fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true)))
    .map(([first, main, after, again]) => [...first, main, ...(again && main.kind === 'answer' ? [main] : []), ...after]);
}

const page = (index: number, last: boolean): fc.Arbitrary<unknown> =>
  fc.subarray(TOOLS, { minLength: 1 }).chain((tools) =>
    mutated({ tools: tools.map((tool) => ({ ...tool, name: index === 0 ? tool.name : `${tool.name}_${index}` })), ...(last ? {} : { nextCursor: `c${index + 1}` }) }),
  );

const httpStyle: fc.Arbitrary<HttpStyle> = fc.record({
  body: fc.constantFrom('sse', 'json'),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    fc.constantFrom('text/event-stream; charset=utf-8', 'TEXT/EVENT-STREAM', 'application/json; charset=utf-16', 'application/json', 'text/html', 'application/octet-stream', 'text/event-stream;;'),
  ),
  crlf: fc.boolean(),
  comments: fc.boolean(),
  splitData: fc.boolean(),
  eventName: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(undefined, 'message') }, fc.constantFrom('other', '')),
  ids: fc.boolean(),
  unterminated: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
  target: fc.constantFrom('initialize', 'tools/list', 'tools/call', 'tools/call'),
  status: fc.oneof({ weight: 8, arbitrary: fc.constant(200) }, fc.constantFrom(201, 202, 204, 400, 404, 500)),
}).map((style) => ({
  ...style,
  // Mostly the content type that goes with the body.
  contentType: style.contentType === '' ? (style.body === 'sse' ? 'text/event-stream' : 'application/json') : style.contentType,
}));

/** A whole fuzzed server. */
export const scenario: fc.Arbitrary<McpScenario> = fc
  .record({
    // Mostly valid: a session that fails at initialize goes no further.
    initialize: answering(mutated(INITIALIZE, 1), false),
    pageCount: fc.integer({ min: 1, max: 3 }),
    call: answering(callResult, true),
    chunk: fc.constantFrom(0, 0, 1, 7, 64),
    lineEnd: fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
    http: httpStyle,
  })
  .chain(({ pageCount, ...rest }) =>
    fc.tuple(...Array.from({ length: pageCount }, (_, i) => answering(page(i, i === pageCount - 1), false))).map((pages) => ({ ...rest, pages })),
  );
