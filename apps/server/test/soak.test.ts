import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_PATHS } from './clients/client-suite.ts';
import { startGatewayProcess } from './clients/gateway-process.ts';
import type { GatewayProcess } from './clients/gateway-process.ts';
import { startPacedUpstream } from './helpers/paced-upstream.ts';
import type { PacedUpstream, ScriptedTurn } from './helpers/paced-upstream.ts';

// Bounded and loopback only: the gateway's own bin in front of a paced upstream that
// alternates every misbehaviour of issue 14 §1, with 50 concurrent client streams.
// Bounded and loopback only: the 30 s by default; TOOLWIRE_SOAK_SECONDS=5 for a quick local run.
const SECONDS = Number(process.env.TOOLWIRE_SOAK_SECONDS ?? '30');
const CONCURRENCY = 50;
/** Heap growth (MB, after full GCs) that still counts as "back to the start level". */
const HEAP_TOLERANCE_MB = 20;

/** The upstream behaviours the soak alternates, request by request. */
const BEHAVIOURS: Omit<ScriptedTurn, 'text' | 'toolCalls'>[] = [
  { usage: 'chunk' },
  { usage: 'none' },
  { usage: 'finish' },
  { ending: 'reset' },
  { ending: 'cut' },
  { trickle: true },
  { ending: 'no-done' },
  { ending: 'garbage' },
  { noise: true, pauseMs: 25 },
];

let upstream: PacedUpstream;
let gateway: GatewayProcess;

beforeAll(async () => {
  let turn = 0;
  upstream = await startPacedUpstream({
    pauseMs: 5,
    script: () => {
      const behaviour = BEHAVIOURS[turn++ % BEHAVIOURS.length]!;
      return turn % 2 === 0
        ? { ...behaviour, text: 'Checking the weather.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }
        : { ...behaviour, text: 'The quick brown fox jumps over the lazy dog.' };
    },
  });
  gateway = await startGatewayProcess(upstream, { heapProbe: true });
}, 30_000);

afterAll(async () => {
  await gateway.stop();
  await upstream.close();
}, 30_000);

type Outcome = 'answer' | 'error-frame' | 'disconnected';

/** One streamed request; throws on anything a client must never see (no status 200, a hang, a cut connection). */
async function streamOnce(model: string, disconnect: boolean): Promise<Outcome> {
  const controller = new AbortController();
  // A stream that neither ends nor errors within 15 s is a request left open.
  const timer = setTimeout(() => controller.abort(new Error('the stream hung for 15 s')), 15_000);
  try {
    const res = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'weather in Paris?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        stream: true,
        stream_options: { include_usage: true },
      }),
      signal: controller.signal,
    });
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    if (disconnect) {
      await res.body!.getReader().read();
      controller.abort();
      return 'disconnected';
    }
    const text = await res.text();
    if (text.endsWith('data: [DONE]\n\n') && !text.includes('"error":')) return 'answer';
    const frames = text.trimEnd().split('\n\n');
    if (frames.at(-1)?.startsWith('data: {"error":') === true) return 'error-frame';
    throw new Error(`a stream that ended neither with [DONE] nor with an error frame: ${text.slice(-300)}`);
  } finally {
    clearTimeout(timer);
  }
}

describe(`soak: ${CONCURRENCY} concurrent streams for ${SECONDS} s against a misbehaving upstream (TOOLWIRE_SOAK_SECONDS)`, () => {
  it(
    'never crashes, leaves no upstream request open, and returns the heap to its start level',
    async () => {
      // Warm up so the baseline holds what the first requests allocate for good (JIT, pools, caches).
      for (const path of MODEL_PATHS) await Promise.all(Array.from({ length: 10 }, () => streamOnce(path.model, false).catch(() => 'ignored')));
      expect(gateway.alive(), `the gateway died during the warm-up:\n${gateway.output()}`).toBe(true);
      const before = await gateway.heapMb();
      const deadline = Date.now() + SECONDS * 1000;
      const counts: Record<Outcome, number> = { answer: 0, 'error-frame': 0, disconnected: 0 };
      const failures: unknown[] = [];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          for (let i = 0; Date.now() < deadline && failures.length < 5; i++) {
            const path = MODEL_PATHS[(worker + i) % MODEL_PATHS.length]!;
            try {
              // Every eleventh client leaves mid-stream.
              counts[await streamOnce(path.model, (worker + i) % 11 === 0)]++;
            } catch (error) {
              failures.push(error);
            }
          }
        }),
      );
      const alive = gateway.alive();
      expect(failures, `the gateway failed clients (alive: ${String(alive)}):\n${gateway.output()}`).toEqual([]);
      expect(alive).toBe(true);
      expect(await gateway.healthy()).toBe(true);
      expect(counts.answer).toBeGreaterThan(CONCURRENCY);
      expect(counts['error-frame']).toBeGreaterThan(0);
      expect(counts.disconnected).toBeGreaterThan(0);

      // Every upstream response finished or closed; the gateway's idle keep-alive sockets are not requests.
      for (let i = 0; i < 300 && upstream.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(upstream.inFlight, 'upstream requests still open after every client finished').toBe(0);

      await new Promise((r) => setTimeout(r, 200));
      const after = await gateway.heapMb();
      console.log(
        `soak: ${counts.answer} answers, ${counts['error-frame']} error frames, ${counts.disconnected} disconnects; gateway heap ${before.toFixed(1)} → ${after.toFixed(1)} MB`,
      );
      expect(after - before).toBeLessThan(HEAP_TOLERANCE_MB);
    },
    SECONDS * 1000 + 60_000,
  );
});
