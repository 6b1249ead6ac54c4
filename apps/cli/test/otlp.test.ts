import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai.ts';
import type { FakeOpenAI } from './fake-openai.ts';
import { runCli } from './run-cli.ts';

/** One export as a real OTLP/HTTP receiver got it (the http exporters send OTLP/JSON). */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
}

/** An OTLP/HTTP receiver on 127.0.0.1 that accepts every export, or (`hang`) never answers. */
async function startReceiver(mode: 'ok' | 'hang'): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, text });
      if (mode === 'hang') return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
}

function spansOf(received: readonly Received[]): JsonSpan[] {
  type Body = { resourceSpans?: { scopeSpans?: { spans?: JsonSpan[] }[] }[] };
  return received.filter((r) => r.path === '/v1/traces').flatMap((r) => ((JSON.parse(r.text) as Body).resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? [])));
}

let fake: FakeOpenAI | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await fake?.close();
  await receiver?.close();
  fake = undefined;
  receiver = undefined;
});

const TURNS = [{ toolCall: { name: 'calculate', arguments: '{"expression":"17 * 23 + 4"}' } }, { text: 'The answer is 395.' }];

describe('toolwire chat with the standard OTEL_* variables', () => {
  it('sends one trace per turn (invoke_agent, chat, execute_tool) and the GenAI metrics to the OTLP endpoint, without the prompt, arguments or key', async () => {
    fake = await startFakeOpenAI(TURNS);
    receiver = await startReceiver('ok');
    const run = await runCli(['chat', 'What is 17*23+4?', '--model', 'openai/fake-model', '--tools', 'builtin'], {
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-cli-otlp-secret', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The answer is 395.');
    expect(run.stderr).not.toContain('warning');

    const spans = spansOf(receiver.received);
    const turn = spans.find((span) => span.name === 'invoke_agent toolwire');
    expect(spans.map((span) => span.name).sort()).toEqual(['chat fake-model', 'chat fake-model', 'execute_tool calculate', 'invoke_agent toolwire']);
    for (const span of spans) {
      expect(span.traceId).toBe(turn?.traceId);
      if (span !== turn) expect(span.parentSpanId).toBe(turn?.spanId);
    }
    const metrics = receiver.received.filter((r) => r.path === '/v1/metrics').map((r) => r.text);
    expect(metrics.join('')).toContain('gen_ai.client.operation.duration');
    const everything = receiver.received.map((r) => `${JSON.stringify(r.headers)}\n${r.text}`).join('\n');
    expect(everything).toContain('{"key":"service.name","value":{"stringValue":"toolwire-cli"}}');
    for (const secret of ['sk-cli-otlp-secret', '17 * 23', 'What is 17', 'authorization']) expect(everything.toLowerCase()).not.toContain(secret.toLowerCase());
  }, 30_000);

  it('still answers and ends, with a warning or two, when the collector never answers (after OTEL_EXPORTER_OTLP_TIMEOUT)', async () => {
    fake = await startFakeOpenAI(TURNS);
    receiver = await startReceiver('hang');
    const run = await runCli(['chat', 'What is 17*23+4?', '--model', 'openai/fake-model', '--tools', 'builtin'], {
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' },
      timeoutMs: 20_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The answer is 395.');
    expect(receiver.received.length).toBeGreaterThan(0);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('OpenTelemetry'));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThanOrEqual(3);
  }, 30_000);

  it('does not hold the prompt for the exporter\'s whole retry window when nothing listens at the endpoint', async () => {
    fake = await startFakeOpenAI(TURNS);
    receiver = await startReceiver('ok');
    const refused = receiver.url;
    await receiver.close();
    receiver = undefined;
    // The exporter retries a refused connection for OTEL_EXPORTER_OTLP_TIMEOUT (30 s here);
    // chat gives its last export 3 s, so it ends well within the 12 s this run is allowed.
    const run = await runCli(['chat', 'What is 17*23+4?', '--model', 'openai/fake-model', '--tools', 'builtin'], {
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: refused, OTEL_EXPORTER_OTLP_TIMEOUT: '30000' },
      timeoutMs: 12_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The answer is 395.');
    expect(run.stderr).toContain('warning: OpenTelemetry: the collector did not take the last traces and metrics in time');
  }, 30_000);
});
