import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream } from './helpers/fake-upstreams.ts';

// Bounded and loopback only: the 30 s by default; TOOLWIRE_LOAD_SECONDS=5 for a quick local run.
const SECONDS = Number(process.env.TOOLWIRE_LOAD_SECONDS ?? '30');
const CONCURRENCY = 200;

// vitest.shared.ts starts the test workers with --expose-gc.
const gc =
  globalThis.gc ??
  ((): never => {
    throw new Error('globalThis.gc is missing: run the tests with --expose-gc (vitest.shared.ts passes it)');
  });

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

let upstream: FakeUpstream;
let server: ToolwireServer;
let baseURL: string;

beforeAll(async () => {
  upstream = await startFakeOpenAI((body) => {
    const text = String((body.messages as { content: string }[]).at(-1)?.content);
    return text === 'slow' ? { slowText: 'z'.repeat(100), delayMs: 5 } : { text: 'The quick brown fox jumps over the lazy dog.' };
  });
  server = createServer({ logger: pino({ level: 'silent' }), providers: { openai: { apiKey: 'sk-upstream', baseURL: `${upstream.url}/v1` } } });
  baseURL = await server.listen({ port: 0 });
});

afterAll(async () => {
  await server.close();
  await upstream.close();
});

async function streamOnce(content: string, abortAfterFirstChunk: boolean): Promise<'ok' | 'aborted'> {
  const controller = new AbortController();
  const res = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-fake', messages: [{ role: 'user', content }], stream: true }),
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  if (abortAfterFirstChunk) {
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    return 'aborted';
  }
  const text = await res.text();
  if (!text.endsWith('data: [DONE]\n\n') || text.includes('"error"')) throw new Error(`bad stream: ${text.slice(-200)}`);
  return 'ok';
}

describe(`load: ${CONCURRENCY} concurrent streams for ${SECONDS} s (TOOLWIRE_LOAD_SECONDS)`, () => {
  it(
    'completes every stream without errors, leaves no upstream request running, and returns the heap near its start',
    async () => {
      // Warm up so the baseline includes what the first requests allocate for good (JIT, pools).
      await Promise.all(Array.from({ length: 20 }, () => streamOnce('warm', false)));
      const before = heapMb();
      const deadline = Date.now() + SECONDS * 1000;
      let completed = 0;
      let aborted = 0;
      const errors: unknown[] = [];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          for (let i = 0; Date.now() < deadline; i++) {
            // Every tenth client request disconnects mid-stream.
            const disconnect = (worker + i) % 10 === 0;
            try {
              const outcome = await streamOnce(disconnect ? 'slow' : 'fast', disconnect);
              if (outcome === 'ok') completed++;
              else aborted++;
            } catch (error) {
              errors.push(error);
              if (errors.length > 5) return;
            }
          }
        }),
      );
      expect(errors).toEqual([]);
      expect(completed).toBeGreaterThan(CONCURRENCY);
      expect(aborted).toBeGreaterThan(0);
      for (let i = 0; i < 200 && upstream.open > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(upstream.open).toBe(0);
      await new Promise((r) => setTimeout(r, 100));
      const after = heapMb();
      console.log(`load: ${completed} streams completed, ${aborted} disconnected; heap ${before.toFixed(1)} → ${after.toFixed(1)} MB`);
      expect(after - before).toBeLessThan(30);
    },
    SECONDS * 1000 + 60_000,
  );
});
