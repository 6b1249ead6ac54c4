import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startPacedUpstream } from './helpers/paced-upstream.ts';
import type { PacedUpstream } from './helpers/paced-upstream.ts';

// Valid JSON Schemas of the less common shapes clients send (boolean schemas, `$ref` with
// `$defs`/`definitions`, tuples, empty or absent `properties`, OpenAPI's `nullable`), through
// every path that reads them: OpenAI native, Ollama native, the text-tool prompt, Responses,
// strict mode, and the arguments of a call checked against them. None of them may be refused.

const place = z.object({ lat: z.number(), lon: z.number() });
const node: z.ZodType<{ name: string; children: unknown[] }> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));

const SCHEMAS: Record<string, Record<string, unknown>> = {
  'boolean schemas as property values': { type: 'object', properties: { city: { type: 'string' }, anything: true, nothing: false }, required: ['city'] },
  'a boolean schema in anyOf, items and additionalProperties': {
    type: 'object',
    properties: { city: { anyOf: [{ type: 'string' }, true] }, tags: { type: 'array', items: true }, map: { type: 'object', additionalProperties: true } },
    additionalProperties: false,
  },
  '$ref into $defs': { type: 'object', properties: { city: { type: 'string' }, where: { $ref: '#/$defs/place' } }, $defs: { place: { type: 'object', properties: { lat: { type: 'number' } } } } },
  '$ref into definitions (draft 7)': { type: 'object', properties: { city: { type: 'string' }, where: { $ref: '#/definitions/place' } }, definitions: { place: { type: 'object', properties: { lat: { type: 'number' } } } } },
  'empty properties': { type: 'object', properties: {} },
  'no properties': { type: 'object' },
  'no type, no properties': {},
  'nullable (OpenAPI)': { type: 'object', properties: { city: { type: 'string', nullable: true } } },
  'type lists with null': { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'], additionalProperties: false },
  'a tuple (prefixItems, items: false)': { type: 'object', properties: { city: { type: 'string' }, pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } } },
  'a tuple (draft 4 items list, additionalItems: false)': { type: 'object', properties: { city: { type: 'string' }, pair: { type: 'array', items: [{ type: 'string' }, true], additionalItems: false } } },
  'if/then/else and not with boolean schemas': { type: 'object', properties: { city: { type: 'string', not: false } }, if: true, then: true, else: false },
  'zod 4 toJSONSchema (recursive, $defs, optional, nullable, tuple, record)': z.toJSONSchema(
    z.object({ city: z.string(), where: place.optional(), tree: node, note: z.string().nullable(), pair: z.tuple([z.string(), z.number()]), extra: z.record(z.string(), z.unknown()), any: z.any() }),
  ),
  'zod 4 toJSONSchema draft 7': z.toJSONSchema(z.object({ city: z.string(), pair: z.tuple([z.string(), z.number()]), tree: node }), { target: 'draft-7' }),
};

const ROUTES = [
  { what: 'Chat Completions to OpenAI', api: 'chat', model: 'openai/gpt-4o-mini' },
  { what: 'Chat Completions to Ollama (native tools)', api: 'chat', model: 'ollama/qwen3:0.6b' },
  { what: 'Chat Completions to Ollama (text tools)', api: 'chat', model: 'ollama/gemma3:1b' },
  { what: 'Responses to OpenAI', api: 'responses', model: 'openai/gpt-4o-mini' },
  { what: 'Responses to OpenAI, strict', api: 'responses-strict', model: 'openai/gpt-4o-mini' },
  { what: 'Responses to Ollama (text tools)', api: 'responses', model: 'ollama/gemma3:1b' },
] as const;

let upstream: PacedUpstream;
let server: ToolwireServer;
let baseURL: string;

beforeAll(async () => {
  upstream = await startPacedUpstream({ pauseMs: 0 });
  server = createServer({ logger: pino({ level: 'silent' }), providers: { openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' }, ollama: { host: upstream.url } } });
  baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server.close();
  await upstream.close();
});

function body(route: (typeof ROUTES)[number], parameters: Record<string, unknown>, stream: boolean): unknown {
  if (route.api === 'chat') {
    return { model: route.model, stream, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters } }], tool_choice: 'required' };
  }
  return { model: route.model, stream, input: 'Weather in Paris?', tools: [{ type: 'function', name: 'get_weather', parameters, strict: route.api === 'responses-strict' }], tool_choice: 'required' };
}

describe('client tool schemas of every valid shape', () => {
  for (const route of ROUTES) {
    for (const [what, parameters] of Object.entries(SCHEMAS)) {
      for (const stream of [false, true]) {
        it(`${route.what}${stream ? ', streamed' : ''}: ${what}`, async () => {
          upstream.script = (request) => (request.toolResults.length > 0 ? { text: 'Done.' } : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
          const path = route.api === 'chat' ? 'chat/completions' : 'responses';
          const response = await fetch(`${baseURL}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(route, parameters, stream)) });
          const text = await response.text();
          expect(response.status, text).toBe(200);
          expect(text).not.toMatch(/"error":\{|"type":"error"|event: error|invalid_function_parameters|server_error/);
          expect(text).toContain('get_weather');
        });
      }
    }
  }
});
