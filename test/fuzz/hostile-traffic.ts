// Arbitraries of hostile upstream traffic, built by mutating recorded traffic: a list of
// messages (SSE events, NDJSON lines, a JSON body) with messages dropped, duplicated,
// reordered, fields replaced by values of the wrong type or removed; then the bytes with
// garbage and invalid UTF-8 put in, cut short, split anywhere; and HTTP error replies of
// every shape.
import fc from 'fast-check';

/** One message of a reply: a JSON value, or raw text sent as it is (`[DONE]`, a comment). */
export type Frame = { value: unknown } | { raw: string };

/** What the stand-in upstream does once it has written its bytes. */
export type Ending = 'end' | 'reset' | 'hold';

/** One reply of the stand-in upstream. */
export interface UpstreamReply {
  status: number;
  headers: Record<string, string>;
  /** Informational responses sent before the status (`100`, `102`, `103`). */
  informational: number[];
  /** The body, written piece by piece, one per turn of the event loop. */
  chunks: Uint8Array[];
  ending: Ending;
}

/** Where the stand-in upstream writes the credential the request carried (a server that echoes it). */
export const KEY_PLACEHOLDER = '@@KEY@@';

// A value of the wrong type (or a hostile one of the right type) for any field.
const DEEP = 1500;
const hostileString = fc.oneof(
  fc.constantFrom('', ' ', 'null', '{', '{"a":', '{"a":1}', '[]', '[1,2]', '"x"', '0', 'call_1', 'call_dup', '__proto__', 'constructor', 'hasOwnProperty', 'toString', '\u0000', '\ud800', '\udfff\ud800', 'é😀', '\r\n\r\n', 'data: [DONE]\n\n', '</script>', 'x'.repeat(5000), `Incorrect API key provided: ${KEY_PLACEHOLDER}.`, KEY_PLACEHOLDER),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 1.5, -0.5, 2 ** 31, -(2 ** 31), 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, 5e-324, 1e21),
  hostileString,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<unknown>([], {}, [null], [1, 'a'], { a: 1 }, { type: 'function' }, { message: 5 }, { name: {}, arguments: [] }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as unknown),
  // Printed short in counterexamples: fast-check's printer would overflow the stack on them.
  fc.constant(Object.defineProperty(JSON.parse('['.repeat(DEEP) + ']'.repeat(DEEP)) as unknown[], fc.toStringMethod, { value: () => `[…${DEEP} nested lists…]` })),
  fc.constant(Object.defineProperty(JSON.parse('{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP)) as object, fc.toStringMethod, { value: () => `{"a":…${DEEP} nested objects…}` })),
  fc.array(fc.oneof(fc.integer(), hostileString), { maxLength: 5 }),
);

/** One step of a message-list mutation; positions are taken modulo the list or path count at the time. */
type FrameOp =
  | { op: 'drop'; at: number }
  | { op: 'duplicate'; at: number }
  | { op: 'swap'; at: number; with: number }
  | { op: 'set'; at: number; path: number; value: unknown }
  | { op: 'delete'; at: number; path: number }
  | { op: 'raw'; at: number; text: string }
  /** Every field named `key` in one message (`all: false`) or in all of them: ids, indexes, arguments gone wrong together. */
  | { op: 'set-key'; at: number; key: string; value: unknown; all: boolean };

/** The fields tool calls are assembled by, in every wire format here. */
const KEYS = ['id', 'index', 'call_id', 'item_id', 'output_index', 'arguments', 'name', 'type', 'delta', 'tool_calls', 'function', 'done', 'finish_reason', 'status', 'content'];

const rawText = fc.oneof(
  fc.constantFrom('[DONE]', '', '{', 'null', '[]', '"text"', '42', 'true', '{"type":', '<html>502</html>', ': keep-alive', '\u0000\u0001', '{"error":{"message":"boom"}}', '{"error":5}'),
  fc.string({ maxLength: 30 }),
);

const frameOp: fc.Arbitrary<FrameOp> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), at: fc.nat(), with: fc.nat() }),
  { arbitrary: fc.record({ op: fc.constant('set' as const), at: fc.nat(), path: fc.nat(), value: wrongValue }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat(), path: fc.nat() }), weight: 2 },
  fc.record({ op: fc.constant('raw' as const), at: fc.nat(), text: rawText }),
  { arbitrary: fc.record({ op: fc.constant('set-key' as const), at: fc.nat(), key: fc.constantFrom(...KEYS), value: fc.oneof(wrongValue, fc.constantFrom('call_dup', '', -1, 0, 1, 2 ** 31, 1e300)), all: fc.boolean() }), weight: 2 },
);

type Path = (string | number)[];

/** Every path to a field or element inside `value` (not the root). */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = [], depth = 0): Path[] {
  if (depth > 12 || typeof value !== 'object' || value === null) return out;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const path = [...prefix, key];
    out.push(path);
    pathsOf(child, path, out, depth + 1);
  }
  return out;
}

function setAt(root: unknown, path: Path, value: unknown, remove: boolean): unknown {
  if (path.length === 0) return remove ? undefined : value;
  const copy: unknown = structuredClone(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (remove) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else Reflect.deleteProperty(node, last);
  } else {
    Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** `value` with every field named `key`, at any depth, set to `replacement`. */
function setKey(value: unknown, key: string, replacement: unknown, depth = 0): unknown {
  if (depth > 12 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => setKey(item, key, replacement, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value)) {
    Object.defineProperty(copy, name, { value: name === key ? replacement : setKey(child, key, replacement, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

export function applyFrameOps(frames: readonly Frame[], ops: readonly FrameOp[]): Frame[] {
  const list = [...frames];
  for (const op of ops) {
    if (list.length === 0) break;
    const at = op.at % list.length;
    switch (op.op) {
      case 'drop':
        list.splice(at, 1);
        break;
      case 'duplicate':
        list.splice(at, 0, list[at]!);
        break;
      case 'swap': {
        const other = op.with % list.length;
        [list[at], list[other]] = [list[other]!, list[at]!];
        break;
      }
      case 'raw':
        list.splice(at, 0, { raw: op.text });
        break;
      case 'set-key':
        for (let index = 0; index < list.length; index++) {
          const frame = list[index]!;
          if ((op.all || index === at) && 'value' in frame) list[index] = { value: setKey(frame.value, op.key, op.value) };
        }
        break;
      case 'set':
      case 'delete': {
        const frame = list[at]!;
        if (!('value' in frame)) break;
        const paths = pathsOf(frame.value);
        if (paths.length === 0) {
          if (op.op === 'set') list[at] = { value: op.value };
          break;
        }
        const next = setAt(frame.value, paths[op.path % paths.length]!, op.op === 'set' ? op.value : undefined, op.op === 'delete');
        list[at] = { value: next };
        break;
      }
    }
  }
  return list;
}

/** `frames` mutated by a short list of operations (sometimes none). */
export function mutatedFrames(frames: readonly Frame[], maxOps = 6): fc.Arbitrary<Frame[]> {
  return fc.array(frameOp, { maxLength: maxOps }).map((ops) => applyFrameOps(frames, ops));
}

/** Garbage put into a byte stream: invalid UTF-8, NULs, line breaks that end events early. */
const garbage = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 12 }),
  fc.constantFrom(
    Uint8Array.of(0xff, 0xfe),
    Uint8Array.of(0xc3),
    Uint8Array.of(0x80, 0x80),
    Uint8Array.of(0xed, 0xa0, 0x80),
    Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
    Uint8Array.of(0xef, 0xbb, 0xbf),
    Uint8Array.of(0),
    new TextEncoder().encode('\n\n'),
    new TextEncoder().encode('\r'),
    new TextEncoder().encode('data: {"x"\n\n'),
    new TextEncoder().encode('event: error\n'),
    new TextEncoder().encode('retry: 1\n'),
  ),
);

type ByteOp = { op: 'insert'; at: number; bytes: Uint8Array } | { op: 'cut'; at: number } | { op: 'flip'; at: number; byte: number };
const byteOp: fc.Arbitrary<ByteOp> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => Math.floor(x * 1e9)), bytes: garbage }), weight: 3 },
  fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
);

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function applyByteOps(bytes: Uint8Array, ops: readonly ByteOp[]): Uint8Array {
  let out = bytes;
  for (const op of ops) {
    if (op.op === 'insert') {
      const at = out.length === 0 ? 0 : op.at % (out.length + 1);
      out = concat([out.subarray(0, at), op.bytes, out.subarray(at)]);
    } else if (op.op === 'cut') {
      out = out.subarray(0, out.length === 0 ? 0 : op.at % out.length);
    } else if (out.length > 0) {
      out = Uint8Array.from(out);
      out[op.at % out.length] = op.byte;
    }
  }
  return out;
}

/** `bytes` split into pieces at up to `maxCuts` positions (single bytes included). */
export function splitBytes(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  if (bytes.length === 0) return [bytes];
  const at = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of at) {
    if (cut > from) pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

/** How frames become bytes: SSE with or without `event:` lines, NDJSON, or one JSON body. */
export type FrameEncoding = 'sse' | 'sse-named' | 'ndjson' | 'json';

function frameText(frame: Frame): string {
  return 'raw' in frame ? frame.raw : JSON.stringify(frame.value) ?? 'undefined';
}

export function encodeFrames(frames: readonly Frame[], encoding: FrameEncoding): string {
  switch (encoding) {
    case 'json':
      return frames.map(frameText).join('');
    case 'ndjson':
      return frames.map((frame) => frameText(frame) + '\n').join('');
    case 'sse':
    case 'sse-named':
      return frames
        .map((frame) => {
          const type = 'value' in frame && typeof frame.value === 'object' && frame.value !== null ? (frame.value as { type?: unknown }).type : undefined;
          const name = encoding === 'sse-named' && typeof type === 'string' ? `event: ${type}\n` : '';
          return `${name}data: ${frameText(frame)}\n\n`;
        })
        .join('');
  }
}

const CONTENT_TYPES: Record<FrameEncoding, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  sse: 'text/event-stream',
  'sse-named': 'text/event-stream',
};

/** Which ending a reply has: mostly a clean end, sometimes a reset or a connection held open. */
export const ending: fc.Arbitrary<Ending> = fc.oneof({ arbitrary: fc.constant('end' as const), weight: 4 }, fc.constant('reset' as const), fc.constant('hold' as const));

const informational = fc.array(fc.constantFrom(100, 102, 103), { maxLength: 2 });

/** A 200 reply carrying `frames` mutated, then turned into hostile bytes. */
export function mutatedReply(frames: readonly Frame[], encoding: FrameEncoding, options: { maxOps?: number } = {}): fc.Arbitrary<UpstreamReply> {
  return fc
    .record({
      frames: mutatedFrames(frames, options.maxOps),
      byteOps: fc.oneof({ arbitrary: fc.constant([] as ByteOp[]), weight: 2 }, fc.array(byteOp, { maxLength: 3 })),
      cuts: fc.array(fc.nat(), { maxLength: 8 }),
      ending,
      informational,
      contentType: fc.oneof({ arbitrary: fc.constant(CONTENT_TYPES[encoding]), weight: 6 }, fc.constantFrom('text/html', 'text/plain; charset=latin1', '', 'application/json')),
    })
    .map(({ frames: mutated, byteOps, cuts, ending: end, informational: info, contentType }) => {
      const bytes = applyByteOps(new TextEncoder().encode(encodeFrames(mutated, encoding)), byteOps);
      const headers: Record<string, string> = contentType === '' ? {} : { 'content-type': contentType };
      return readable({ status: 200, headers, informational: info, chunks: splitBytes(bytes, cuts), ending: end });
    });
}

const retryAfter = fc.oneof(
  fc.constantFrom('0', '1', '-1', '0.001', '1e9', 'soon', '', 'Wed, 21 Oct 2015 07:28:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT', '99999999999999999999'),
  fc.nat({ max: 3 }).map(String),
);

/** An error body of any shape: JSON with the usual and wrong field types, HTML, text, empty, large. */
export const errorBody: fc.Arbitrary<{ text: string; contentType?: string }> = fc.oneof(
  fc.record({ message: fc.oneof(hostileString, wrongValue), type: fc.oneof(fc.constant('invalid_request_error'), wrongValue), code: fc.oneof(fc.constantFrom('rate_limit_exceeded', 'context_length_exceeded', 'insufficient_quota', 'usage_limit_reached', null), wrongValue) }).map((error) => ({
    text: JSON.stringify({ error }),
    contentType: 'application/json',
  })),
  wrongValue.map((value) => ({ text: JSON.stringify({ error: value }), contentType: 'application/json' })),
  wrongValue.map((value) => ({ text: JSON.stringify(value), contentType: 'application/json' })),
  fc.constantFrom('<html><body><h1>502 Bad Gateway</h1></body></html>', `<p>Bad token ${KEY_PLACEHOLDER}</p>`, '', 'Internal Server Error', '{"error":', 'null').map((text) => ({ text, contentType: 'text/html' })),
  fc.constantFrom('', '{"error":{"message":"x"}}').map((text) => ({ text })),
  fc.nat({ max: 400_000 }).map((size) => ({ text: `<html>${'x'.repeat(size)}</html>`, contentType: 'text/html' })),
);

/** A status other than a plain 200: 2xx-5xx, and an error body with or without `retry-after`. */
export const errorReply: fc.Arbitrary<UpstreamReply> = fc
  .record({
    status: fc.oneof(fc.constantFrom(201, 204, 206, 301, 302, 304, 307, 400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529), fc.integer({ min: 200, max: 599 })),
    body: errorBody,
    retryAfter: fc.option(retryAfter),
    retryAfterMs: fc.option(retryAfter),
    location: fc.option(fc.constantFrom('/v1/elsewhere', '', 'http://127.0.0.1:9/', '//')),
    informational,
    ending,
    cuts: fc.array(fc.nat(), { maxLength: 3 }),
  })
  .map(({ status, body, retryAfter: after, retryAfterMs: afterMs, location, informational: info, ending: end, cuts }) => {
    const headers: Record<string, string> = {};
    if (body.contentType !== undefined) headers['content-type'] = body.contentType;
    if (after !== null) headers['retry-after'] = after;
    if (afterMs !== null) headers['retry-after-ms'] = afterMs;
    if (location !== null) headers.location = location;
    const bytes = status === 204 || status === 304 ? new Uint8Array() : new TextEncoder().encode(body.text);
    // A redirect whose body never ends keeps its socket in undici after fetch follows it, until
    // the server closes it (fetch's own behaviour, known and left alone): such a reply ends.
    const redirect = status >= 300 && status < 400 && location !== null;
    return readable({ status, headers, informational: info, chunks: splitBytes(bytes, cuts), ending: redirect && end === 'hold' ? 'end' : end });
  });

/** Gives a reply a readable form in fast-check's counterexamples: the body as text, pieces joined by `|`. */
export function readable(reply: UpstreamReply): UpstreamReply {
  const decoder = new TextDecoder();
  const body = reply.chunks.map((chunk) => decoder.decode(chunk)).join('|');
  return Object.defineProperty(reply, fc.toStringMethod, {
    value: () => `{status:${reply.status},headers:${JSON.stringify(reply.headers)},informational:${JSON.stringify(reply.informational)},ending:${reply.ending},body:${JSON.stringify(body)}}`,
  });
}

/** Reads a recorded `*.chunks.txt` (one JSON event per line) into frames. */
export function framesFromLines(text: string): Frame[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => ({ value: JSON.parse(line) as unknown }));
}
