import { createScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

// Client input nested thousands deep: a 400 the SDKs do not retry, never a 5xx. Bodies are
// written as text because JSON.stringify itself cannot serialise such depths.
let server: ToolwireServer;
let origin: string;
let baseURL: string;

beforeAll(async () => {
  const started = await startGateway(() => createScriptedModel(Array.from({ length: 20 }, () => ({ text: 'fine' }))));
  ({ server, origin, baseURL } = started);
});
afterAll(() => server.close());

const N = 10_000;
const user = '{"role":"user","content":"hi"}';
const deepSchema = '{"type":"object","properties":{"a":'.repeat(N) + '{"type":"string"}' + '}}'.repeat(N);
const deepArgs = JSON.stringify('{"a":'.repeat(N) + '1' + '}'.repeat(N));
const deepArrayArgs = JSON.stringify('['.repeat(N) + ']'.repeat(N));
const replay = (args: string): string =>
  `[${user},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":${args}}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]`;
const tool = (parameters: string): string => `[{"type":"function","function":{"name":"f","parameters":${parameters}}}]`;

const shapes: [string, string][] = [
  ['a tool schema nested 10k deep', `{"model":"test/x","messages":[${user}],"tools":${tool(deepSchema)}}`],
  ['replayed arguments nested 10k deep (objects)', `{"model":"test/x","messages":${replay(deepArgs)},"tools":${tool('{"type":"object"}')}}`],
  ['replayed arguments nested 10k deep (arrays)', `{"model":"test/x","messages":${replay(deepArrayArgs)},"tools":${tool('{"type":"object"}')}}`],
  ['message content nested 10k deep', `{"model":"test/x","messages":[{"role":"user","content":${'['.repeat(N)}${']'.repeat(N)}}]}`],
  ['a response_format schema nested 10k deep', `{"model":"test/x","messages":[${user}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${deepSchema}}}}`],
  ['a body of one million brackets', `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`],
];

describe('deeply nested client input', () => {
  for (const [what, body] of shapes) {
    it(`answers 400 invalid_request_error for ${what}`, async () => {
      const res = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-should-retry')).toBe('false');
      const envelope = (await res.json()) as { error: { type: string; code: string; message: string } };
      expect(envelope.error).toMatchObject({ type: 'invalid_request_error', code: 'nesting_too_deep' });
      expect(envelope.error.message).toContain('64 levels');
    });
  }

  it('is a BadRequestError for the openai client, and a schema of ordinary depth still works', async () => {
    const openai = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });
    let parameters: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) parameters = { type: 'object', properties: { a: parameters } };
    const ok = await openai.chat.completions.create({ model: 'test/x', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters } }] });
    expect(ok.choices[0]?.message.content).toBe('fine');
    for (let i = 0; i < 100; i++) parameters = { type: 'object', properties: { a: parameters } };
    const refused = await openai.chat.completions
      .create({ model: 'test/x', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters } }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
