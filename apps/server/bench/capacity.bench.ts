// Capacity: N concurrent long-lived streams (~30 tokens/s each, from a local paced upstream)
// through one gateway process, against the same through a bare byte-forwarding proxy, in
// one run. Per target: RSS per open stream (RSS with all streams open minus RSS before,
// over N), event-loop delay p99 while they run, and time to first token p50/p99 (the
// gateway's added TTFT is its TTFT minus the proxy's). Upstream, targets and this client
// each run in their own process; everything is on 127.0.0.1.
//
// Aims (issue 19): ≤ 30 KB RSS per open stream; event-loop delay p99 ≤ 20 ms at 5,000
// streams; added TTFT p99 ≤ 5 ms at 1,000 streams.
//
// TOOLWIRE_BENCH_STREAMS=1000,5000,10000 picks the sizes (default 200, to keep `pnpm bench`
// within minutes); TOOLWIRE_BENCH_STREAM_SECONDS the length of each stream (default 10;
// the runs use 20). A size needing more file descriptors than the limit allows
// is skipped with a note.
import { execFileSync } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { readStats, startProcess, stopAll, stopProcess } from './support/processes.ts';
import type { BenchProcess } from './support/processes.ts';

const sizes = (process.env.TOOLWIRE_BENCH_STREAMS ?? '200')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const streamSeconds = Number(process.env.TOOLWIRE_BENCH_STREAM_SECONDS ?? '10');
const TOKENS_PER_SECOND = 30;
const tokens = Math.max(1, Math.round(streamSeconds * TOKENS_PER_SECOND));

/** The soft limit on open files of processes started from here. */
function fileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
  } catch {
    return 1024;
  }
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

interface StreamOutcome {
  ttftMs: number;
  ok: boolean;
}

/** One stream: resolves once it has ended, with its time to first token. */
function openStream(agent: Agent, url: string, model: string, firstToken: () => void): Promise<StreamOutcome> {
  return openStreamOf(agent, url, model, tokens, firstToken);
}

function openStreamOf(agent: Agent, url: string, model: string, count: number, firstToken: () => void = () => undefined): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    let ttftMs = Number.NaN;
    let text = '';
    const body = JSON.stringify({ model, stream: true, max_tokens: count, messages: [{ role: 'user', content: 'Tell me a long story.' }] });
    const req = httpRequest(`${url}/chat/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (part: string) => {
        if (Number.isNaN(ttftMs) && part.includes('tok ')) {
          ttftMs = performance.now() - startedAt;
          firstToken();
        }
        // Only the tail is needed, to see [DONE].
        text = (text + part).slice(-64);
      });
      res.on('end', () => resolve({ ttftMs, ok: res.statusCode === 200 && text.includes('[DONE]') }));
      res.on('error', () => resolve({ ttftMs, ok: false }));
    });
    req.on('error', () => resolve({ ttftMs, ok: false }));
    req.end(body);
  });
}

interface CapacityResult {
  name: string;
  streams: number;
  ok: number;
  rssPerStreamKb: number;
  eldP99Ms: number;
  eldMaxMs: number;
  /** CPU time over wall time while all streams ran (1 = one core busy). */
  cpuShare: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
}

async function measure(name: string, target: BenchProcess, model: string, n: number): Promise<CapacityResult> {
  const statsURL = target.stats;
  if (statsURL === undefined) throw new Error(`${name} has no stats`);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  // Warm-up (JIT, lazily loaded modules, the upstream client's sockets), then settle, then the baseline RSS.
  const warm = new Agent({ keepAlive: false, maxSockets: Infinity });
  for (let round = 0; round < 3; round++) {
    await Promise.all(Array.from({ length: 100 }, () => openStreamOf(warm, target.url, model, 3)));
  }
  warm.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  (globalThis as { gc?: () => void }).gc?.();
  const before = await readStats(statsURL, true);
  let first = 0;
  let allFirst: () => void = () => undefined;
  const allStarted = new Promise<void>((resolve) => (allFirst = resolve));
  const onFirst = (): void => {
    first++;
    if (first === n) allFirst();
  };
  // Opened in waves, as clients arrive: 250 every 50 ms.
  const streams: Promise<StreamOutcome>[] = [];
  for (let i = 0; i < n; i++) {
    streams.push(openStream(agent, target.url, model, onFirst));
    if (i % 250 === 249) await new Promise((r) => setTimeout(r, 50));
  }
  const settled = Promise.all(streams);
  // All open (or given up on): sample RSS and the event loop while they stream.
  await Promise.race([allStarted, settled, new Promise((r) => setTimeout(r, (streamSeconds + 30) * 1000))]);
  const windowStart = await readStats(statsURL, true);
  const windowStartedAt = performance.now();
  let cpuShare = 0;
  let peakRss = 0;
  let eldP99Ms = 0;
  let eldMaxMs = 0;
  const windowMs = Math.max(1000, (streamSeconds * 1000) / 2);
  const sampleUntil = performance.now() + windowMs;
  while (performance.now() < sampleUntil) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await readStats(statsURL);
    peakRss = Math.max(peakRss, now.rss);
    eldP99Ms = now.eldP99Ms;
    eldMaxMs = now.eldMaxMs;
    cpuShare = (now.cpuMs - windowStart.cpuMs) / (performance.now() - windowStartedAt);
  }
  const outcomes = await settled;
  agent.destroy();
  const ttfts = outcomes
    .map((o) => o.ttftMs)
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b);
  return {
    name,
    streams: n,
    ok: outcomes.filter((o) => o.ok).length,
    rssPerStreamKb: (peakRss - before.rss) / 1024 / n,
    eldP99Ms,
    eldMaxMs,
    cpuShare,
    ttftP50Ms: percentile(ttfts, 50),
    ttftP99Ms: percentile(ttfts, 99),
  };
}

function print(results: CapacityResult[]): void {
  const rows = results.map((r) => [r.name, String(r.streams), `${r.ok}/${r.streams}`, r.rssPerStreamKb.toFixed(1), r.eldP99Ms.toFixed(1), r.eldMaxMs.toFixed(1), `${(100 * r.cpuShare).toFixed(0)}%`, r.ttftP50Ms.toFixed(1), r.ttftP99Ms.toFixed(1)]);
  const header = ['target', 'streams', 'completed', 'RSS KB/stream', 'ELD p99 ms', 'ELD max ms', 'CPU (1 core=100%)', 'TTFT p50 ms', 'TTFT p99 ms'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

const limit = fileLimit();
console.log(`capacity: streams of ${streamSeconds} s at ~${TOKENS_PER_SECOND} tokens/s (${tokens} tokens); sizes ${sizes.join(', ')}; open-file limit ${limit}`);
try {
  const upstream = await startProcess('./paced-upstream-process.ts');
  for (const n of sizes) {
    // The target holds two sockets per stream (client side, upstream side), this client one.
    if (2 * n + 200 > limit) {
      console.log(`\n${n} streams: skipped: needs about ${2 * n + 200} open files per process, the limit here is ${limit} (raise it with 'ulimit -n' before 'pnpm bench').`);
      continue;
    }
    console.log(`\n${n} concurrent streams`);
    const results: CapacityResult[] = [];
    for (const kind of ['proxy', 'gateway'] as const) {
      const target = await startProcess('./target-process.ts', [kind, upstream.url]);
      try {
        results.push(await measure(kind === 'proxy' ? 'bare byte proxy' : 'toolwire gateway', target, kind === 'proxy' ? 'gpt-fake' : 'openai/gpt-fake', n));
      } finally {
        await stopProcess(target);
      }
    }
    print(results);
    const [proxy, gateway] = results;
    if (proxy !== undefined && gateway !== undefined) {
      const addedP50 = gateway.ttftP50Ms - proxy.ttftP50Ms;
      const addedP99 = gateway.ttftP99Ms - proxy.ttftP99Ms;
      console.log(
        `${n} streams: gateway ${gateway.rssPerStreamKb.toFixed(1)} KB RSS per open stream (aim ≤ 30), event-loop delay p99 ${gateway.eldP99Ms.toFixed(1)} ms` +
          ` (aim ≤ 20 at 5,000), added TTFT p50 ${addedP50.toFixed(1)} ms / p99 ${addedP99.toFixed(1)} ms over the bare proxy (aim p99 ≤ 5 at 1,000)`,
      );
    }
  }
} finally {
  await stopAll();
}
