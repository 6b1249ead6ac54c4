import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { it } from 'vitest';
import { createServer } from '../../src/index.ts';
import { startAuthServer } from '../../../../packages/provider-chatgpt-oauth/test/helpers/auth-server.ts';
import { makeAuthFile, makeTokenSet } from '../../../../packages/provider-chatgpt-oauth/test/helpers/jwt.ts';
import { FUZZ_UPSTREAM_MODELS, startFuzzUpstream } from './fuzz-upstream.ts';
import { exchange } from './raw-exchange.ts';
import { answerFor, baseAnswers, mutateEvents } from './upstream-traffic.ts';

it('debug', async () => {
  const c = JSON.parse(process.env.CASE!);
  const upstream = await startFuzzUpstream();
  const auth = await startAuthServer();
  const dir = await mkdtemp(join(tmpdir(), 'dbg-'));
  const authFile = join(dir, 'auth.json');
  const tokens = makeTokenSet({ expiresIn: 24 * 3600 });
  auth.adopt(tokens);
  await writeFile(authFile, JSON.stringify(makeAuthFile(tokens)));
  const server = createServer({
    logger: pino({ level: 'debug' }),
    providers: { openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk' }, ollama: { host: upstream.url }, chatgpt: { authFile, baseURL: upstream.url, issuer: auth.url, models: ['gpt-5.4'] } },
    limits: { upstreamIdleTimeoutMs: 3000, maxSteps: 3 },
  });
  const origin = (await server.listen({ port: 0, host: '127.0.0.1' })).slice(0, -3);
  upstream.answer = ({ dialect, stream }) => {
    const bases = baseAnswers(dialect, stream);
    return answerFor(dialect, stream, mutateEvents(bases[c.base % bases.length]!, c.mutations), c.delivery);
  };
  const routes = ['openai/gpt-4o-mini', 'ollama/qwen3:0.6b', 'ollama/gemma3:1b', 'chatgpt/gpt-5.4'];
  const model = routes[c.route];
  const body = c.api === 'chat'
    ? { model, messages: [{ role: 'user', content: 'Weather?' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }, ...(c.serverTool ? [{ type: 'function', function: { name: 'calculate' } }] : [])], stream: c.stream }
    : { model, input: 'Weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }, ...(c.serverTool ? [{ type: 'function', name: 'calculate' }] : [])], stream: c.stream, store: false };
  const t = performance.now();
  const a = await exchange(origin, { method: 'POST', path: c.api === 'chat' ? '/v1/chat/completions' : '/v1/responses', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) }, 30000);
  console.log('TOOK', performance.now() - t, a.status, a.body.toString().slice(0, 3000));
  await server.close(); await upstream.close(); await auth.close();
  void FUZZ_UPSTREAM_MODELS;
}, 60000);
