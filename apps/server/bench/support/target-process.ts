// One measured target in its own process: `proxy` (a bare node:http proxy that forwards
// bytes) or `gateway` (the Toolwire gateway), both in front of the same upstream, or
// `gateway-local` (the gateway with an in-process model, to isolate its own cost).
import { Agent, createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { ChatModel } from '@toolwire/core';
import { pino } from 'pino';
import { createServer } from '../../src/index.ts';

const [kind, upstreamURL] = process.argv.slice(2);
if (upstreamURL === undefined) throw new Error('usage: target-process.ts proxy|gateway <upstream-url>');

if (kind === 'proxy') {
  const port = Number(new URL(upstreamURL).port);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const proxy = createHttpServer((req, res) => {
    const up = httpRequest({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers, agent }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    req.pipe(up);
  });
  proxy.listen(0, '127.0.0.1', () => {
    const address = proxy.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}/v1` })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
} else if (kind === 'gateway-local') {
  // The gateway with an in-process model: no upstream hop, so what remains is the gateway's own cost.
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
  const model: ChatModel = {
    provider: 'local',
    modelId: 'static',
    generate: () =>
      Promise.resolve({ text, toolCalls: [], toolResults: [], finishReason: 'stop', warnings: [], message: { role: 'assistant', content: text }, usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }),
    async *stream() {
      await Promise.resolve();
      yield { type: 'text-delta', delta: text };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } };
    },
  };
  const gateway = createServer({
    logger: pino({ level: 'warn' }),
    modelProviders: [{ name: 'openai', chat: () => model, listModels: () => Promise.resolve(['gpt-fake']) }],
  });
  const url = await gateway.listen({ port: 0 });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)));
} else {
  // Logs at warn: per-request info lines would measure the log sink, not the gateway.
  const gateway = createServer({ logger: pino({ level: 'warn' }), providers: { openai: { apiKey: 'sk-bench', baseURL: `${upstreamURL}/v1` } } });
  const url = await gateway.listen({ port: 0 });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)));
}
