import OpenAI from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startPacedUpstream } from './helpers/paced-upstream.ts';
import type { PacedUpstream, ScriptedTurn } from './helpers/paced-upstream.ts';

// A request whose server tools ran and whose next model call then failed: the SDKs retry a
// 5xx (or a 429) by themselves when `x-should-retry` lets them, and a retry runs the tools
// again (an order placed twice). The gateway says not to retry once a server tool ran.
// (The gateway's own model-call retries, on the upstream side, are not the client's: they stay.)

let upstream: PacedUpstream;
let server: ToolwireServer;
let baseURL: string;

beforeAll(async () => {
  upstream = await startPacedUpstream({ pauseMs: 0 });
  server = createServer({ logger: pino({ level: 'silent' }), providers: { openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' } } });
  baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server.close();
  await upstream.close();
});

/** Calls the server tool first; the model call after its result fails as `failure` says. */
const failingAfterTool = (failure: ScriptedTurn) => () => {
  upstream.script = (request) => (request.toolResults.length > 0 ? failure : { toolCalls: [{ name: 'get_current_time', arguments: {} }] });
};

const failures: [string, ScriptedTurn][] = [
  ['a reset while its body is read (503 upstream_unavailable)', { text: 'cut short by a reset', ending: 'reset' }],
  ['a 500 from the upstream (502)', { error: { status: 500, message: 'The server had an error' } }],
  ['a 429 from the upstream', { error: { status: 429, message: 'Rate limit reached' } }],
];

describe.each([false, true])('stream: %s', (stream) => {
  it.each(failures)('after a server tool ran, %s is not retried by the SDK and says why', async (_what, failure) => {
    failingAfterTool(failure)();
    const client = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 2 });
    const body = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'What time is it?' }], tools: [{ type: 'function' as const, function: { name: 'get_current_time' } }] };
    const error = await (stream ? client.chat.completions.create({ ...body, stream: true }).then(async (events) => { for await (const _ of events); }) : client.chat.completions.create(body)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.headers?.get('x-should-retry')).toBe('false');
    expect(apiError.message).toContain('get_current_time');
    expect(apiError.message).toContain('a retry would run them again');
    // One first model call (the tool ran once), one after it: the SDK sent the request once.
    expect(upstream.requests.filter((r) => r.toolResults.length === 0)).toHaveLength(1);
    upstream.reset();
  }, 30_000);

  it('a failure before any server tool ran stays retryable', async () => {
    upstream.script = () => ({ error: { status: 500, message: 'The server had an error' } });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', stream, messages: [{ role: 'user', content: 'What time is it?' }], tools: [{ type: 'function', function: { name: 'get_current_time' } }] }),
    });
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.headers.get('x-should-retry')).toBe('true');
    upstream.reset();
  });
});
