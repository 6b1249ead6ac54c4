import { executeToolCall, isToolOutput, ToolRegistry } from '@toolwire/core';
import type { JsonSchema, Tool } from '@toolwire/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../src/index.ts';
import type { OpenApiAuth } from '../src/index.ts';
import { fuzzedDocument, oddValue } from './fuzz/document-arbitraries.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fixed-seed-parameters.ts';
import { startRawApi } from './fuzz/raw-api.ts';
import type { RawApi, ResponsePlan } from './fuzz/raw-api.ts';

// Generated arguments (valid and not) through the tools of fuzzed documents, against an API
// that answers with generated responses, echoing the request where it can. The model reads
// a value or a tool error, never an exception, and never the credentials.
const TOKEN = 'tok-7f3a9c1e5b';
const PASSWORD = 'pw-2d8e4a6c0f';
const SESSION = 'sess-9b1d3f5a7c';

const AUTHS: OpenApiAuth[] = [
  { type: 'bearer', token: TOKEN },
  { type: 'header', name: 'x-api-key', value: TOKEN },
  { type: 'query', name: 'api_key', value: TOKEN },
  { type: 'basic', username: 'user', password: PASSWORD },
];

/** Every form a credential could take in what the model reads. */
function secretForms(): string[] {
  const plain = [TOKEN, PASSWORD, SESSION];
  return [...plain, ...plain.map(encodeURIComponent), Buffer.from(`user:${PASSWORD}`).toString('base64')];
}

const plan: fc.Arbitrary<ResponsePlan> = fc.record({
  status: fc.constantFrom(200, 200, 200, 201, 204, 206, 299, 301, 302, 304, 400, 401, 403, 404, 409, 418, 422, 429, 500, 503, 599),
  statusText: fc.constantFrom('plain', 'echo', 'empty'),
  contentType: fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=utf-16',
    'application/problem+json',
    'text/plain; charset=iso-8859-1',
    'text/html',
    'application/octet-stream',
    'image/png',
    'a/b/c;;;=',
    '',
    'application/x-www-form-urlencoded',
  ),
  body: fc.constantFrom('json', 'json-invalid', 'json-deep', 'json-bom', 'empty', 'binary', 'invalid-utf8', 'echo', 'echo-json-escaped', 'echo-percent', 'echo-json', 'large'),
  contentLength: fc.constantFrom('exact', 'exact', 'exact', 'none', 'larger', 'smaller', 'garbage', 'two-values', 'negative'),
  contentEncoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'br', 'identity', 'x-unknown'),
  retryAfter: fc.constantFrom('none', 'echo', 'seconds', 'garbage'),
  echoContentType: fc.boolean(),
  reset: fc.constantFrom('none', 'none', 'none', 'before-head', 'mid-body'),
});

const ODD_STRINGS = ['', '.', '..', '/', '../x', '?x=1', '#f', '%00', '%', 'a\r\nX-Injected: 1', '\ud800', '\udc00x', '😀', '\u0000', 'é', ' ', '__proto__'];

/** A value for `schema`: one of its type most of the time, anything otherwise. */
function valueFor(schema: unknown, g: fc.GeneratorValue): unknown {
  const type = (schema as { type?: unknown } | null)?.type;
  const kind = Array.isArray(type) ? type[0] : type;
  if (g(fc.nat, { max: 7 }) === 0) return g(() => oddValue);
  switch (kind) {
    case 'string':
      return g(() => fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) }, fc.constantFrom(...ODD_STRINGS), fc.string({ unit: 'binary', maxLength: 6 })));
    case 'integer':
      return g(() => fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 100 }) }, fc.integer(), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, 2 ** 53)));
    case 'number':
      return g(() => fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return g(fc.boolean);
    case 'array':
      return g(() => fc.array(fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 6 }) }, fc.constantFrom(...ODD_STRINGS), fc.integer(), fc.constant({ a: 1 })), { maxLength: 3 }));
    case 'object':
      return g(() => fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'x y', '[k]', '='), fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.integer(), fc.constant([1, 2])), { maxKeys: 3 }));
    default:
      return g(() => oddValue);
  }
}

function argumentsFor(tool: Tool, g: fc.GeneratorValue): Record<string, unknown> {
  const properties = (tool.inputSchema as JsonSchema & { properties?: Record<string, unknown> }).properties ?? {};
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (g(fc.nat, { max: 7 }) === 0) continue;
    Object.defineProperty(args, name, { value: valueFor(schema, g), enumerable: true, writable: true, configurable: true });
  }
  return args;
}

/** `promise`, or a failure after `ms`: a call ends within its `timeoutMs` (3 s here), never hangs. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the call did not end within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

let api: RawApi;
const uncaught: unknown[] = [];
const collect = (error: unknown) => uncaught.push(error);
beforeAll(async () => {
  process.on('uncaughtException', collect);
  process.on('unhandledRejection', collect);
  api = await startRawApi();
});
afterAll(async () => {
  process.off('uncaughtException', collect);
  process.off('unhandledRejection', collect);
  await api.close();
});

const RUNS = 60;

describe('openApiTools calls against a fuzzed API', () => {
  it('answers a value or a tool error, and never shows a credential', { timeout: fuzzTimeout(RUNS, 3000) }, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzedDocument({ blind: false, maxChanges: 3 }), fc.constantFrom(...AUTHS), fc.gen(), async (document, auth, g) => {
        let tools: Tool[];
        try {
          tools = await openApiTools(document, {
            baseURL: `${api.origin}/v1`,
            allowPrivateNetwork: true,
            auth,
            headers: { 'x-session-token': SESSION, 'x-trace': 'fuzz' },
            maxResponseBytes: 64 * 1024,
            maxResultChars: 4000,
            timeoutMs: 3000,
          });
        } catch {
          return; // fuzz-documents.test.ts checks how documents are refused
        }
        for (const tool of tools.slice(0, 3)) {
          api.plan = g(() => plan);
          const args = argumentsFor(tool, g);
          // Validated first, as the tool loop does.
          const result = await within(10_000, executeToolCall({ id: 'call_fuzz', name: tool.name, arguments: args }, { registry: new ToolRegistry({ tools }) }));
          // And straight into execute, as if validation had let anything through.
          api.plan = g(() => plan);
          let direct: unknown;
          try {
            direct = await within(10_000, Promise.resolve(tool.execute?.(args, { toolCallId: 'call_direct', signal: new AbortController().signal })));
          } catch (error) {
            expect.fail(`execute threw ${String(error)} for ${JSON.stringify(args)}`);
          }
          expect(isToolOutput(direct), `execute answered ${String(direct)}`).toBe(true);
          for (const read of [result.message, JSON.stringify(result.value) ?? '', (direct as { message: string }).message, JSON.stringify((direct as { value?: unknown }).value) ?? '']) {
            expect(typeof read).toBe('string');
            expect(read.length).toBeLessThan(70_000);
            for (const secret of secretForms()) expect(read, `credential shown for ${JSON.stringify(api.plan)}`).not.toContain(secret);
          }
          expect(result.message).not.toMatch(/TypeError|URIError|RangeError|Cannot read propert|is not a function|\[object Object\]/);
        }
        await new Promise((resolve) => setImmediate(resolve));
        expect(uncaught.splice(0)).toEqual([]);
      }),
      fuzzParameters(RUNS, 26_102),
    );
  });
});
