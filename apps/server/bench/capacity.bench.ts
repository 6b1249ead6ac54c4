// Capacity: N concurrent long-lived streams (~30 tokens/s each, from a local paced
// upstream) through one gateway process, against the same through a bare byte-forwarding
// proxy, in one run. Per target: memory retained per open stream, CPU and JS heap allocated
// per token, event-loop delay p99, and time to first token (the gateway's added TTFT is its
// TTFT minus the proxy's). Upstream, targets and the clients each run in their own process
// (several client processes at thousands of streams, so that the client's own event loop
// is not what delays first tokens); everything is on 127.0.0.1. Where `taskset` and a second
// CPU exist, the target runs pinned to CPU 1 and everything else to the other CPUs
// (TOOLWIRE_BENCH_PIN=0 turns that off), so that the harness does not take the target's core.
//
// Two phases, reported apart:
// - The opening burst: the N clients arrive in waves of 250 every 50 ms (thousands of
//   arrivals per second), in two halves: the opening pauses once N/2 are flowing, for a
//   memory read (see below), then the other half arrives the same way. Its TTFT (the main
//   table's 'burst TTFT') is how long the last of a crowd of N/2 waits, not what one request
//   sees on a busy gateway; its CPU and delay are those of both halves, without the pause. The
//   figures taken while those N stream (memory, CPU and heap per token, 'ELD') come after it,
//   once all are flowing.
// - The steady state (the issue's TTFT and event-loop delay): with N streams open and
//   flowing, new streams arrive at the rate N streams of the stream's length have in steady
//   state (N / stream seconds per second: 50/s for 1,000 streams of 20 s), evenly spaced on a
//   fixed schedule (a slow target does not slow the arrivals), each replacing (closing, as a
//   client that leaves) the oldest burst stream, so about N stay open. It lasts
//   TOOLWIRE_BENCH_STEADY_SECONDS (default half a stream; the burst streams are made that much
//   longer, plus 3 s and the settling pauses below, so that they are still open to be
//   replaced). Its table gives the TTFT p50/p99 of those arrivals, the event-loop delay p99
//   and the CPU over the phase; the summary line gives the added TTFT (gateway minus proxy,
//   p50 and p99; at the default 200 streams of 10 s that is 100 arrivals, so p99 is the
//   slowest of them). Each arrival is closed once it
//   had its first token (or after 5 s, counted as 'no first token'): it was opened for its TTFT.
//   Closing streams costs the targets something too (the gateway aborts its upstream call, the
//   proxy destroys its upstream request): a real gateway sees clients leave as well. It starts
//   3 s after the memory reads (below), as the opening's second half does after the read at
//   half: each read stops the target for a last-resort collection (hundreds of ms at 500
//   streams), and the tokens that queue meanwhile are the bench's doing, not the phase's.
// - Event-loop delay is how late a timer repeating every 10 ms ran. Node's histogram
//   (`monitorEventLoopDelay`) records the time between its runs, which reads 10 ms on an idle
//   loop; the targets report that less the 10 ms (as APM agents do).
//
// Memory per open stream: before each memory read (median of five) the target runs V8's
// last-resort collection (`gc({ flavor: 'last-resort' })`: everything collectable, the young
// generation shrunk to its minimum, free pages given back), so what is read is what is
// retained. A plain full collection leaves the young generation at the size the allocation
// rate grew it to (up to 2 x 64 MB here) and RSS then swings by tens of MB between reads
// whatever the streams hold; that size is printed apart ('young gen under load', MB: a cost
// per process up to that cap, not per stream). Two figures:
// - What one more open stream costs ('N/2→N', the aim's figure): the opening pauses once half
//   the streams are open and flowing (after the same flowing window as at N), the memory is
//   read, the other half opens, and the memory read with all N open minus the one at N/2 is
//   divided by the streams added. Both reads are in the same process, both under the load of
//   streams flowing, both before the process had ever held more streams than it then had (so
//   the second half cannot reuse memory freed by streams that closed). What a process grows
//   once whatever its load (starting up, JIT code, the warm-up's idle sockets, malloc arenas
//   made once) is in both reads and cancels out; what every stream holds, and what the
//   allocators keep per stream, does not. Nor does what the first half's streams grow
//   between the two reads (the gateway keeps each answer's text so far: about 0.8 KB of heap
//   per stream over those seconds), which the figure charges to the added half, so it
//   overstates a gateway stream's cost by about that. Printed as RSS, the part of it outside V8's heap
//   (RSS minus V8's resident heap: malloc'd memory, Node's buffers and native objects), the
//   live JS heap and external memory (the process's own accounting). Socket buffers in the
//   kernel are in none of them.
// - Growth from the warm process ('0→N', the old figure): the same read minus the one taken
//   before the streams (after a warm-up), over N. It counts growth that is not per stream
//   (malloc arenas the opening burst grows; the warm-up's keep-alive sockets, which close
//   meanwhile, make its heap figure smaller), so it is kept for comparison only.
// The peak RSS without collecting is printed beside them: it counts garbage the collector
// had not got to yet, and the young generation.
// RSS also counts what the allocators keep once they have grown: glibc's malloc keeps freed
// memory in its arenas. So, after all streams ended, RSS is read once more in the same way
// ('RSS kept after close'): what a process that has served N streams holds at rest over what
// it held before them.
// TOOLWIRE_BENCH_MALLOC_ARENA_MAX=2 starts every target with MALLOC_ARENA_MAX=2 (fewer glibc
// arenas, a setting deployments use to curb that retention), printed in the header.
//
// Where the opening burst's time to first token goes is printed under the tables: a TTFT histogram, the
// client's connect and response-header times, the target's phases per request (client sent →
// accepted → request parsed → upstream request → upstream headers → first byte out, from
// Node's diagnostics channels; upstream requests per client request show SDK retries), the
// target's CPU and the time it waited for a core while the streams were being opened, and
// the machine's TCP drop/retransmit counters. Node accepts one connection per listening
// socket per turn of its event loop, so a target whose loop is busy takes a burst of clients
// slowly (see src/extra-listeners.ts); both targets listen on the same number of sockets.
// CPU per token falls when a target falls behind (each read and write then carries several
// tokens): compare it between targets that keep up; heap bytes per token is counted, not timed.
//
// Aims (issue 19): ≤ 30 KB RSS per open stream (read as 'RSS KB/stream N/2→N'); event-loop delay p99 ≤ 20 ms at 5,000
// streams; added TTFT p99 ≤ 5 ms at 1,000 streams.
//
// TOOLWIRE_BENCH_STREAMS=1000,5000,10000 picks the sizes (default 200, to keep `pnpm bench`
// within minutes); TOOLWIRE_BENCH_STREAM_SECONDS the length of each stream (default 10;
// the issue's runs use 20); TOOLWIRE_BENCH_STEADY_SECONDS the steady state's length; TOOLWIRE_BENCH_CLIENTS the number of client processes (default
// one per 1,000 streams, at most 8); TOOLWIRE_BENCH_HEAP_SNAPSHOT=1 writes a heap snapshot of
// each target (to the temp directory) with the streams open; TOOLWIRE_BENCH_NODE_FLAGS adds
// Node flags to the targets (`--cpu-prof --cpu-prof-dir=…`); TOOLWIRE_BENCH_TARGETS=gateway (or
// proxy) measures one of them only, and `sdk-proxy` in it adds the openai SDK proxy (the floor
// of an SDK-backed gateway: what the SDK alone retains per stream). A size needing more file descriptors than the limit
// allows is skipped with a note.
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { cpuCount, pinningNote, pinProcess, pinSelf, targetAndHarnessCpus } from './support/cpu-pinning.ts';
import { readStats, startProcess, stopAll, stopProcess } from './support/processes.ts';
import type { BenchProcess, TargetStats } from './support/processes.ts';
import type { ClientReport, OpenCommand, ResumeCommand, SteadyCommand } from './support/stream-client-process.ts';
import type { PhaseReport, PhaseSummary } from './support/stream-phases.ts';

const sizes = (process.env.TOOLWIRE_BENCH_STREAMS ?? '200')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const streamSeconds = Number(process.env.TOOLWIRE_BENCH_STREAM_SECONDS ?? '10');
const TOKENS_PER_SECOND = 30;
const tokens = Math.max(1, Math.round(streamSeconds * TOKENS_PER_SECOND));
// The steady state's length: new streams arrive for this long (default half a stream).
const steadySeconds = Number(process.env.TOOLWIRE_BENCH_STEADY_SECONDS ?? String(streamSeconds / 2));
// How long the opening pauses at half the streams, at most, for the memory read there (see the header):
// the same flowing window as at N (a quarter of a stream, at least 1 s), the samples, a margin.
const flowWindowMs = Math.max(1000, streamSeconds * 1000 * 0.25);
const HALF_PAUSE_SECONDS = flowWindowMs / 1000 + 4;
// The burst's streams last that much longer (and a margin), so that the steady state still finds them open to replace.
const STEADY_MARGIN_SECONDS = 3;
// The memory reads before the steady state stop the target for a last-resort collection each
// (hundreds of ms at 500 streams); the tokens that arrive meanwhile, and a young generation
// shrunk to its minimum, cost it the next second or so. The steady state starts after this, so
// that it measures the streams, not the bench's own collections.
// The second half of the opening waits as long after the read at half.
const STEADY_SETTLE_SECONDS = 3;
// And by the pause at half the streams, so that the first half is as far from its end as before.
const burstTokens = Math.max(1, Math.round((streamSeconds + steadySeconds + STEADY_MARGIN_SECONDS + HALF_PAUSE_SECONDS + 2 * STEADY_SETTLE_SECONDS) * TOKENS_PER_SECOND));
// How long a steady-state arrival may wait for its first token before it counts as never having one.
const STEADY_GRACE_MS = 5000;
// Clients arrive in waves: 250 every 50 ms.
const WAVE = 250;
const WAVE_MS = 50;
const MEMORY_SAMPLES = 5;

/** The soft limit on open files of processes started from here. */
function fileLimit(): number {
  try {
    return Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
  } catch {
    return 1024;
  }
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const median = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 50);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A short stream from this process, for the warm-up; resolves when it has ended. */
function warmStream(agent: Agent, url: string, model: string): Promise<void> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ model, stream: true, max_tokens: 3, messages: [{ role: 'user', content: 'Warm up.' }] });
    const req = httpRequest(`${url}/chat/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('error', () => resolve());
    req.end(body);
  });
}

/** Memory of a target after a full collection: the median of `MEMORY_SAMPLES` reads. */
async function retained(statsURL: string, onSample: () => void = () => undefined): Promise<Memory> {
  const samples: TargetStats[] = [];
  for (let i = 0; i < MEMORY_SAMPLES; i++) {
    if (i > 0) await sleep(200);
    samples.push(await readStats(statsURL, { gc: true }));
    onSample();
  }
  return {
    rss: median(samples.map((s) => s.rss)),
    heapUsed: median(samples.map((s) => s.heapUsed)),
    external: median(samples.map((s) => s.external)),
    // Only the first read follows the load: each later one comes shortly after a last-resort
    // collection shrank the young generation, so it shows only how far it grew back since.
    youngUnderLoad: samples[0]?.youngBeforeGc ?? Number.NaN,
    heapResident: median(samples.map(resident)),
    // The median of each read's own difference (medians of RSS and of the heap may come from different reads).
    outsideHeap: median(samples.map((s) => s.rss - resident(s))),
  };
}

/** What of V8's whole heap (every space) is resident in one read. */
function resident(stats: TargetStats): number {
  return Object.values(stats.physicalSpaces).reduce((sum, bytes) => sum + bytes, 0);
}

interface Memory {
  rss: number;
  heapUsed: number;
  /** Memory of C++ objects bound to JS ones that V8 is told of (array buffers, Node's buffers). */
  external: number;
  /**
   * The young generation's committed size before each collection. V8 grows it (up to 2 x 64
   * MB here) while allocation is heavy and keeps it after a plain full collection: sized by
   * the allocation rate up to a fixed cap, not by what the open streams hold. The reads
   * collect with V8's last-resort collection, which shrinks it, so RSS leaves it out.
   */
  youngUnderLoad: number;
  /** What of V8's whole heap (every space) is resident: RSS minus this is memory outside V8's heap (malloc, code, stacks). */
  heapResident: number;
  /** RSS minus `heapResident`, per read: memory outside V8's heap (malloc, code, stacks). */
  outsideHeap: number;
}

/** Has the target write a heap snapshot; resolves with its path. */
async function heapSnapshot(statsURL: string, label: string): Promise<string> {
  const res = await fetch(`${statsURL}/?snapshot=${label}`);
  return ((await res.json()) as { snapshot: string }).snapshot;
}

type SteadyReport = Extract<ClientReport, { type: 'steady-done' }>;

interface Client {
  child: ChildProcess;
  first: number;
  ended: number;
  tokens: number;
  done: Promise<Extract<ClientReport, { type: 'done' }>>;
  /** Set by `steady`, settled by the client's `steady-done`. */
  steadyDone: (report: SteadyReport) => void;
}

/** Starts one client process and waits until it is ready for its command. */
async function startClient(): Promise<Client> {
  const child = fork(new URL('./support/stream-client-process.ts', import.meta.url).pathname, [], {
    execArgv: ['--conditions=@toolwire/source'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (cpus !== undefined) pinProcess(child.pid, cpus.harness);
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let finish: (report: Extract<ClientReport, { type: 'done' }>) => void = () => undefined;
  const client: Client = { child, first: 0, ended: 0, tokens: 0, done: new Promise((resolve) => (finish = resolve)), steadyDone: () => undefined };
  child.on('message', (report: ClientReport) => {
    switch (report.type) {
      case 'ready':
        ready();
        return;
      case 'progress':
        client.first = report.first;
        client.ended = report.ended;
        client.tokens = report.tokens;
        return;
      case 'steady-done':
        client.steadyDone(report);
        return;
      case 'done':
        finish(report);
        return;
      default: {
        const unexpected: never = report;
        throw new Error(`unknown report ${JSON.stringify(unexpected)}`);
      }
    }
  });
  child.once('exit', (code) => {
    client.steadyDone({ type: 'steady-done', ttfts: [], connects: [], headers: [], arrivals: 0, noFirstToken: 0, replaced: 0, lateP99Ms: Number.NaN });
    finish({ type: 'done', ttfts: [], connects: [], headers: [], ok: 0, replaced: 0, cpuMs: 0, wallMs: code ?? 0 });
  });
  await isReady;
  return client;
}

interface CapacityResult {
  name: string;
  streams: number;
  ok: number;
  /** The fewest streams flowing (first token received, not ended) while memory was sampled: all N, unless some never started or ended early. */
  openAtSample: number;
  /** The fewest streams flowing while memory was sampled at half of them. */
  openAtHalf: number;
  /** Streams open at the half-way read (N/2, rounded per client). */
  half: number;
  /** RSS growth from the warm baseline to N open, over N: counts growth that is not per stream (see the header). */
  rssPerStreamKb: number;
  heapPerStreamKb: number;
  /** What one more open stream costs: RSS with N open minus with N/2 open, over the N/2 more (see the header). */
  marginalRssPerStreamKb: number;
  /** The same for the live JS heap and for external memory (the process's own accounting). */
  marginalHeapPerStreamKb: number;
  marginalExternalPerStreamKb: number;
  /** RSS outside V8's heap (malloc'd: Node's buffers and native objects, allocator slack), per added stream. */
  marginalNativePerStreamKb: number;
  /** The young generation's size under the load with N open, MB: a per-process cost up to a fixed cap (see `Memory.youngUnderLoad`). */
  youngUnderLoadMb: number;
  /** Peak RSS without collecting, the old figure: counts garbage too. */
  peakRssPerStreamKb: number;
  /** RSS after every stream ended (collected), over the baseline, per stream: what the allocators and caches keep. */
  rssKeptPerStreamKb: number;
  /** Heap after every stream ended over the baseline, per stream (near 0 unless something stays). */
  heapKeptPerStreamKb: number;
  eldP99Ms: number;
  eldMaxMs: number;
  /** CPU time over wall time while all streams ran (1 = one core busy). */
  cpuShare: number;
  /** Time ready to run but without a core, over wall time, in the same window (other processes had the cores). */
  runWaitShare: number;
  /** The target's CPU time per token the clients received, in µs, while all streams ran. */
  cpuPerTokenUs: number;
  /** Bytes the target allocated on its JS heap per token in the same window (what its collector has to clear). */
  allocPerToken: number;
  /** The client processes' CPU over their wall time, summed (near 1 per client = client-bound). */
  clientCpuShare: number;
  clients: number;
  /** Burst streams closed by the steady state to make room for its arrivals. */
  replaced: number;
  /** Time to first token over the opening burst (all N arriving within about a second). */
  ttftP50Ms: number;
  ttftP99Ms: number;
  /** Where time to first token went (printed under the table). */
  ttftDetail: TtftDetail;
  steady: SteadyResult;
}

/** Streams arriving one at a time while N are open (see the header). */
interface SteadyResult {
  /** Arrivals per second (N / stream seconds) and how long they came. */
  rate: number;
  seconds: number;
  arrivals: number;
  noFirstToken: number;
  ttfts: number[];
  ttftP50Ms: number;
  ttftP99Ms: number;
  eldP99Ms: number;
  eldMaxMs: number;
  cpuShare: number;
  runWaitShare: number;
  /** How late the client processes sent arrivals against the schedule (the worst client's p99). */
  lateP99Ms: number;
}

/** The client's and the target's view of the time to first token, to tell where a slow one waited. */
interface TtftDetail {
  ttfts: number[];
  connects: number[];
  headers: number[];
  phases: PhaseReport;
  burst: Burst;
  /** The machine's TCP counters over the run (every process on the machine counts). */
  tcp: Record<string, number>;
}

/** The target while the streams were being opened (until every stream had its first token). */
interface Burst {
  wallMs: number;
  cpuMs: number;
  /** Time the target's main thread was ready to run but had no CPU (other processes had the cores). */
  runWaitMs: number;
  eldP99Ms: number;
  eldMaxMs: number;
}

/** TCP counters that tell of dropped or retried connections: listen queue overflows, SYN retransmits, resets. */
const TCP_COUNTERS = ['TcpExtListenOverflows', 'TcpExtListenDrops', 'TcpExtTCPSynRetrans', 'TcpAttemptFails', 'TcpEstabResets', 'TcpExtTCPTimeouts'];

/** The machine's TCP counters (`nstat`), or none where it is not installed. */
function tcpCounters(): Record<string, number> {
  try {
    const text = execFileSync('nstat', ['-az', ...TCP_COUNTERS], { encoding: 'utf8' });
    const counters: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const [name, value] = line.trim().split(/\s+/u);
      if (name !== undefined && TCP_COUNTERS.includes(name)) counters[name] = Number(value);
    }
    return counters;
  } catch {
    return {};
  }
}

async function readPhases(statsURL: string, reset: boolean): Promise<PhaseReport> {
  const res = await fetch(`${statsURL}/?phases=${reset ? 'reset' : '1'}`);
  return (await res.json()) as PhaseReport;
}

const TTFT_BUCKETS_MS = [50, 100, 250, 500, 1000, 2000, 4000, 8000, 16_000];

/** How many values fall in each bucket (`≤50 ms: 12 …`), the last one open. */
function histogram(values: readonly number[]): string {
  const counts = new Array<number>(TTFT_BUCKETS_MS.length + 1).fill(0);
  for (const v of values) {
    const i = TTFT_BUCKETS_MS.findIndex((limit) => v <= limit);
    counts[i === -1 ? TTFT_BUCKETS_MS.length : i]!++;
  }
  return counts
    .map((count, i) => (count === 0 ? '' : `${i < TTFT_BUCKETS_MS.length ? `≤${TTFT_BUCKETS_MS[i]}` : `>${TTFT_BUCKETS_MS.at(-1)}`}: ${count}`))
    .filter((cell) => cell !== '')
    .join(', ');
}

// JSON turns NaN (no request reached that phase) into null.
const fixed = (v: number | null): string => (v === null || Number.isNaN(v) ? '-' : v.toFixed(0));
const ms = (s: PhaseSummary): string => `p50 ${fixed(s.p50)} / p90 ${fixed(s.p90)} / p99 ${fixed(s.p99)} / max ${fixed(s.max)}`;

function printTtftDetail(r: CapacityResult): void {
  const d = r.ttftDetail;
  const sorted = (values: number[]): PhaseSummary => {
    const s = [...values].sort((a, b) => a - b);
    return { count: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s.at(-1) ?? Number.NaN };
  };
  const p = d.phases;
  const tcp = Object.entries(d.tcp)
    .filter(([, v]) => v !== 0)
    .map(([k, v]) => `${k.replace(/^Tcp(Ext)?/u, '')} +${v}`)
    .join(', ');
  console.log(`  ${r.name}: TTFT ms histogram: ${histogram(d.ttfts)}`);
  console.log(`    client: connect ${ms(sorted(d.connects))}; response headers ${ms(sorted(d.headers))}`);
  console.log(
    `    target: ${p.requests} requests, ${p.upstreamRequests} upstream requests (${p.retried} retried, ${p.upstreamErrors} failed${p.upstreamErrors > 0 ? ` ${JSON.stringify(p.upstreamErrorCodes)}` : ''}); ` +
      `client sent → accepted ${ms(p.sentToAccept)}; client sent → arrival ${ms(p.sentToArrival)} (arrivals per second: ${p.arrivalsPerSecond.join(' ')}); arrival → upstream request ${ms(p.toUpstream)}; → upstream headers ${ms(p.upstreamHeaders)}; → first byte out ${ms(p.toFirstWrite)}; arrival → first byte out ${ms(p.arrivalToFirstWrite)}`,
  );
  console.log(
    `    opening: ${d.burst.wallMs.toFixed(0)} ms until all had a first token; target CPU ${d.burst.cpuMs.toFixed(0)} ms (${(d.burst.cpuMs / Math.max(1, d.burst.wallMs) * 100).toFixed(0)}% of a core, ${(d.burst.cpuMs / r.streams).toFixed(2)} ms per stream), waiting for a CPU ${d.burst.runWaitMs.toFixed(0)} ms; event-loop delay p99 ${d.burst.eldP99Ms.toFixed(1)} / max ${d.burst.eldMaxMs.toFixed(1)} ms`,
  );
  console.log(`    machine TCP counters over the run: ${tcp === '' ? 'no drops, retransmits or resets' : tcp}`);
  const st = r.steady;
  console.log(`    steady state: TTFT ms histogram: ${histogram(st.ttfts)}; arrivals sent late by the clients p99 ${fixed(st.lateP99Ms)} ms`);
}

/**
 * The steady state: with N streams open, new ones arrive at N / stream seconds per second,
 * evenly spaced (the clients' schedules interleave), each replacing the oldest burst stream,
 * for `steadySeconds` or until the burst streams would end by themselves, whichever is first.
 */
async function steadyState(clients: Client[], statsURL: string, url: string, model: string, n: number, burstEndsAt: number): Promise<SteadyResult> {
  const rate = n / streamSeconds;
  const seconds = Math.max(0, Math.min(steadySeconds, (burstEndsAt - performance.now()) / 1000 - STEADY_MARGIN_SECONDS));
  const arrivals = Math.floor(rate * seconds);
  const intervalMs = 1000 / rate;
  const start = await readStats(statsURL, { reset: true });
  const startedAt = performance.now();
  const reports = await Promise.all(
    clients.map((client, i) => {
      // Client i takes arrivals i, i + C, i + 2C…: together they keep the one even schedule.
      const count = Math.floor((arrivals - i + clients.length - 1) / clients.length);
      const done = new Promise<SteadyReport>((resolve) => (client.steadyDone = resolve));
      const command: SteadyCommand = { type: 'steady', url, model, tokens, arrivals: count, intervalMs: intervalMs * clients.length, offsetMs: intervalMs * i, graceMs: STEADY_GRACE_MS };
      client.child.send(command);
      return done;
    }),
  );
  // Delay and CPU over the arrivals and the wait for their first tokens.
  const end = await readStats(statsURL);
  const wallMs = performance.now() - startedAt;
  const ttfts = reports.flatMap((r) => r.ttfts).sort((a, b) => a - b);
  return {
    rate,
    seconds,
    arrivals: reports.reduce((sum, r) => sum + r.arrivals, 0),
    noFirstToken: reports.reduce((sum, r) => sum + r.noFirstToken, 0),
    ttfts,
    ttftP50Ms: percentile(ttfts, 50),
    ttftP99Ms: percentile(ttfts, 99),
    eldP99Ms: end.eldP99Ms,
    eldMaxMs: end.eldMaxMs,
    cpuShare: (end.cpuMs - start.cpuMs) / wallMs,
    runWaitShare: (end.runWaitMs - start.runWaitMs) / wallMs,
    lateP99Ms: Math.max(...reports.map((r) => r.lateP99Ms)),
  };
}

async function measure(name: string, target: BenchProcess, model: string, n: number): Promise<CapacityResult> {
  const statsURL = target.stats;
  if (statsURL === undefined) throw new Error(`${name} has no stats`);
  // Warm-up (JIT, lazily loaded modules, the upstream client's sockets), then settle, then the baseline.
  const warm = new Agent({ keepAlive: false, maxSockets: Infinity });
  for (let round = 0; round < 3; round++) {
    await Promise.all(Array.from({ length: 100 }, () => warmStream(warm, target.url, model)));
  }
  warm.destroy();
  await sleep(1000);
  const before = await retained(statsURL);
  if (process.env.TOOLWIRE_BENCH_HEAP_SNAPSHOT !== undefined) console.log(`${name}: heap snapshot before the streams: ${await heapSnapshot(statsURL, 'before')}`);
  await readPhases(statsURL, true);
  const tcpBefore = tcpCounters();
  const burstStart = await readStats(statsURL, { reset: true });
  const burstStartedAt = performance.now();
  const clientCount = Math.max(1, Math.min(n, Number(process.env.TOOLWIRE_BENCH_CLIENTS ?? Math.min(8, Math.ceil(n / 1000)))));
  const clients = await Promise.all(Array.from({ length: clientCount }, () => startClient()));
  const started = (): number => clients.reduce((sum, c) => sum + c.first, 0);
  const ended = (): number => clients.reduce((sum, c) => sum + c.ended, 0);
  const received = (): number => clients.reduce((sum, c) => sum + c.tokens, 0);
  const allDone = Promise.all(clients.map((c) => c.done));
  let remaining = n;
  // Each client opens half of its streams, then waits for the word to open the rest.
  let half = 0;
  clients.forEach((client, i) => {
    const count = Math.floor(remaining / (clientCount - i));
    remaining -= count;
    const pauseAfter = Math.floor(count / 2);
    half += pauseAfter;
    const command: OpenCommand = { type: 'open', url: target.url, model, count, tokens: burstTokens, wave: Math.max(1, Math.round(WAVE / clientCount)), waveMs: WAVE_MS, pauseAfter };
    client.child.send(command);
  });
  const giveUpAt = performance.now() + (streamSeconds + 30) * 1000;
  let finished = false;
  void allDone.then(() => (finished = true));
  // Half open: the event-loop delay and CPU of that part of the opening, then, after the same
  // flowing window as at N, the memory with N/2 open (the marginal figures' lower point).
  while (started() < half && !finished && performance.now() < giveUpAt) await sleep(20);
  const halfEnd = await readStats(statsURL);
  const halfWallMs = performance.now() - burstStartedAt;
  await sleep(flowWindowMs);
  let openAtHalf = half;
  const halfway = await retained(statsURL, () => (openAtHalf = Math.min(openAtHalf, started() - ended())));
  await sleep(STEADY_SETTLE_SECONDS * 1000);
  // Then the other half, and measure while all stream.
  const resumeStart = await readStats(statsURL, { reset: true });
  const resumedAt = performance.now();
  const resume: ResumeCommand = { type: 'resume' };
  for (const client of clients) client.child.send(resume);
  while (started() < n && !finished && performance.now() < giveUpAt) await sleep(20);
  // Event-loop delay and CPU first, without the collections of the memory samples below.
  const burstEnd = await readStats(statsURL);
  // The opening's two parts together, without the pause between them.
  const burst: Burst = {
    wallMs: halfWallMs + performance.now() - resumedAt,
    cpuMs: halfEnd.cpuMs - burstStart.cpuMs + burstEnd.cpuMs - resumeStart.cpuMs,
    runWaitMs: halfEnd.runWaitMs - burstStart.runWaitMs + burstEnd.runWaitMs - resumeStart.runWaitMs,
    eldP99Ms: Math.max(halfEnd.eldP99Ms, burstEnd.eldP99Ms),
    eldMaxMs: Math.max(halfEnd.eldMaxMs, burstEnd.eldMaxMs),
  };
  const windowStart = await readStats(statsURL, { reset: true });
  const windowStartedAt = performance.now();
  const tokensAtStart = received();
  let peakRss = 0;
  let last = windowStart;
  // A quarter of a stream's length, so that the memory samples after it still find them all open.
  const windowMs = flowWindowMs;
  while (performance.now() < windowStartedAt + windowMs) {
    await sleep(250);
    last = await readStats(statsURL);
    peakRss = Math.max(peakRss, last.rss);
  }
  const cpuShare = (last.cpuMs - windowStart.cpuMs) / (performance.now() - windowStartedAt);
  // How contended the machine was: time the target was ready to run but had no core.
  const runWaitShare = (last.runWaitMs - windowStart.runWaitMs) / (performance.now() - windowStartedAt);
  // Both token counts are equally stale (progress comes every 100 ms).
  const cpuPerTokenUs = (1000 * (last.cpuMs - windowStart.cpuMs)) / Math.max(1, received() - tokensAtStart);
  // Allocation per token: GC pressure, counted rather than timed (the reset above started the count).
  const allocPerToken = last.allocatedBytes / Math.max(1, received() - tokensAtStart);
  // Then what each open stream retains, checking that they are still open.
  let openAtSample = n;
  const during = await retained(statsURL, () => (openAtSample = Math.min(openAtSample, started() - ended())));
  if (process.env.TOOLWIRE_BENCH_HEAP_SNAPSHOT !== undefined) console.log(`${name}: heap snapshot with ${n - ended()} streams open: ${await heapSnapshot(statsURL, 'open')}`);
  await sleep(STEADY_SETTLE_SECONDS * 1000);
  // The first burst stream ends (its tokens at the upstream's pace) no sooner than this.
  const steady = await steadyState(clients, statsURL, target.url, model, n, burstStartedAt + (burstTokens * 1000) / TOKENS_PER_SECOND);
  const reports = await allDone;
  for (const client of clients) client.child.disconnect();
  // What stays once they all ended (see the header), after the closed streams' sockets are gone.
  await sleep(1000);
  const after = await retained(statsURL);
  const ttfts = reports.flatMap((r) => r.ttfts).sort((a, b) => a - b);
  const tcpAfter = tcpCounters();
  const ttftDetail: TtftDetail = {
    ttfts,
    connects: reports.flatMap((r) => r.connects),
    headers: reports.flatMap((r) => r.headers),
    phases: await readPhases(statsURL, false),
    burst,
    tcp: Object.fromEntries(Object.entries(tcpAfter).map(([k, v]) => [k, v - (tcpBefore[k] ?? 0)])),
  };
  return {
    name,
    streams: n,
    ok: reports.reduce((sum, r) => sum + r.ok, 0),
    replaced: reports.reduce((sum, r) => sum + r.replaced, 0),
    openAtSample,
    openAtHalf,
    half,
    rssPerStreamKb: (during.rss - before.rss) / 1024 / n,
    heapPerStreamKb: (during.heapUsed - before.heapUsed) / 1024 / n,
    marginalRssPerStreamKb: (during.rss - halfway.rss) / 1024 / (n - half),
    marginalHeapPerStreamKb: (during.heapUsed - halfway.heapUsed) / 1024 / (n - half),
    marginalExternalPerStreamKb: (during.external - halfway.external) / 1024 / (n - half),
    marginalNativePerStreamKb: (during.outsideHeap - halfway.outsideHeap) / 1024 / (n - half),
    youngUnderLoadMb: during.youngUnderLoad / 1024 / 1024,
    peakRssPerStreamKb: (peakRss - before.rss) / 1024 / n,
    rssKeptPerStreamKb: (after.rss - before.rss) / 1024 / n,
    heapKeptPerStreamKb: (after.heapUsed - before.heapUsed) / 1024 / n,
    eldP99Ms: last.eldP99Ms,
    eldMaxMs: last.eldMaxMs,
    cpuShare,
    runWaitShare,
    cpuPerTokenUs,
    allocPerToken,
    clientCpuShare: reports.reduce((sum, r) => sum + (r.wallMs > 0 ? r.cpuMs / r.wallMs : 0), 0),
    clients: clientCount,
    ttftP50Ms: percentile(ttfts, 50),
    ttftP99Ms: percentile(ttfts, 99),
    ttftDetail,
    steady,
  };
}

function print(results: CapacityResult[]): void {
  const rows = results.map((r) => [
    r.name,
    String(r.streams),
    `${r.ok}/${r.streams - r.replaced}`,
    `${r.openAtHalf}/${r.openAtSample}`,
    r.marginalRssPerStreamKb.toFixed(1),
    r.marginalNativePerStreamKb.toFixed(1),
    r.marginalHeapPerStreamKb.toFixed(1),
    r.marginalExternalPerStreamKb.toFixed(1),
    r.rssPerStreamKb.toFixed(1),
    r.heapPerStreamKb.toFixed(1),
    r.youngUnderLoadMb.toFixed(0),
    r.peakRssPerStreamKb.toFixed(1),
    r.rssKeptPerStreamKb.toFixed(1),
    r.heapKeptPerStreamKb.toFixed(1),
    r.eldP99Ms.toFixed(1),
    r.eldMaxMs.toFixed(1),
    `${(100 * r.cpuShare).toFixed(0)}%`,
    Number.isNaN(r.runWaitShare) ? '-' : `${(100 * r.runWaitShare).toFixed(0)}%`,
    r.cpuPerTokenUs.toFixed(1),
    r.allocPerToken.toFixed(0),
    `${(100 * r.clientCpuShare).toFixed(0)}% (${r.clients})`,
    r.ttftP50Ms.toFixed(1),
    r.ttftP99Ms.toFixed(1),
  ]);
  const header = [
    'target',
    'streams',
    'completed',
    'flowing at mem N/2/N',
    'RSS KB/stream N/2→N',
    'of it outside V8 heap',
    'heap KB/stream N/2→N',
    'external KB/stream N/2→N',
    'RSS KB/stream 0→N',
    'heap KB/stream 0→N',
    'young gen under load MB',
    'peak RSS KB/stream (no GC)',
    'RSS kept after close KB/stream',
    'heap kept after close KB/stream',
    'ELD p99 ms',
    'ELD max ms',
    'CPU (1 core=100%)',
    'waiting for a core',
    'CPU µs/token',
    'heap B/token',
    'client CPU (procs)',
    'burst TTFT p50 ms',
    'burst TTFT p99 ms',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  printSteady(results);
  console.log("Where the opening burst's time to first token went, and the steady state's TTFT:");
  for (const r of results) printTtftDetail(r);
}

function printSteady(results: CapacityResult[]): void {
  const first = results[0];
  if (first === undefined) return;
  console.log(`steady state: ${first.steady.rate.toFixed(1)} arrivals/s (N / stream seconds), each replacing a burst stream, for ${first.steady.seconds.toFixed(1)} s:`);
  const header = ['target', 'arrivals', 'no first token', 'TTFT p50 ms', 'TTFT p99 ms', 'ELD p99 ms', 'ELD max ms', 'CPU (1 core=100%)', 'waiting for a core'];
  const rows = results.map((r) => [
    r.name,
    String(r.steady.arrivals),
    String(r.steady.noFirstToken),
    r.steady.ttftP50Ms.toFixed(1),
    r.steady.ttftP99Ms.toFixed(1),
    r.steady.eldP99Ms.toFixed(1),
    r.steady.eldMaxMs.toFixed(1),
    `${(100 * r.steady.cpuShare).toFixed(0)}%`,
    Number.isNaN(r.steady.runWaitShare) ? '-' : `${(100 * r.steady.runWaitShare).toFixed(0)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

// TOOLWIRE_BENCH_TARGETS=gateway measures one target only (while working on it); the comparison needs both.
// `sdk-proxy` (an empty proxy calling the upstream through the `openai` SDK) is opt-in: the floor of any SDK-backed gateway.
const targetKinds = (['proxy', 'sdk-proxy', 'gateway'] as const).filter((kind) => (process.env.TOOLWIRE_BENCH_TARGETS ?? 'proxy,gateway').split(',').includes(kind));
const targetNames = { proxy: 'bare byte proxy', 'sdk-proxy': 'openai SDK proxy', gateway: 'toolwire gateway' } as const;
const limit = fileLimit();
// Each target on a CPU of its own, the upstream, the clients and this process on the others
// (TOOLWIRE_BENCH_PIN=0 turns it off): on a 2-core machine the harness otherwise takes its
// CPU from the target's core in turns, which delays first tokens for reasons that are not the
// target's. The bench prints how long each target still waited for its core.
const cpus = process.env.TOOLWIRE_BENCH_PIN === '0' ? undefined : targetAndHarnessCpus();
// glibc's arena count for every target alike (unset: glibc's default, 8 per core).
const arenaMax = process.env.TOOLWIRE_BENCH_MALLOC_ARENA_MAX;
const targetEnv: Record<string, string> = arenaMax === undefined ? {} : { MALLOC_ARENA_MAX: arenaMax };
if (cpus !== undefined) pinSelf(cpus.harness);
// The load average says how much of the machine the processes measured here could have.
console.log(
  `capacity: streams of ${streamSeconds} s at ~${TOKENS_PER_SECOND} tokens/s (${tokens} tokens); sizes ${sizes.join(', ')}; open-file limit ${limit}; ` +
    `${cpuCount()} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; MALLOC_ARENA_MAX ${arenaMax ?? "unset (glibc's default)"}; ${cpus === undefined ? (process.env.TOOLWIRE_BENCH_PIN === '0' ? 'not pinned (TOOLWIRE_BENCH_PIN=0)' : (pinningNote() ?? 'not pinned')) : `targets pinned to CPU ${cpus.target}, upstream and clients to CPU ${cpus.harness}`}`,
);
try {
  const upstream = await startProcess('./paced-upstream-process.ts', [], {}, { cpus: cpus?.harness });
  for (const n of sizes) {
    // The target holds two sockets per stream (client side, upstream side).
    if (2 * n + 200 > limit) {
      console.log(`\n${n} streams: skipped: needs about ${2 * n + 200} open files per process, the limit here is ${limit} (raise it with 'ulimit -n' before 'pnpm bench').`);
      continue;
    }
    console.log(`\n${n} concurrent streams`);
    const results: CapacityResult[] = [];
    for (const kind of targetKinds) {
      const target = await startProcess('./target-process.ts', [kind, upstream.url], targetEnv, { cpus: cpus?.target });
      try {
        results.push(await measure(targetNames[kind], target, kind === 'gateway' ? 'openai/gpt-fake' : 'gpt-fake', n));
      } finally {
        await stopProcess(target);
      }
    }
    print(results);
    const proxy = results.find((r) => r.name === targetNames.proxy);
    const gateway = results.find((r) => r.name === targetNames.gateway);
    if (proxy !== undefined && gateway !== undefined) {
      const addedP50 = gateway.steady.ttftP50Ms - proxy.steady.ttftP50Ms;
      const addedP99 = gateway.steady.ttftP99Ms - proxy.steady.ttftP99Ms;
      const burstAddedP50 = gateway.ttftP50Ms - proxy.ttftP50Ms;
      const burstAddedP99 = gateway.ttftP99Ms - proxy.ttftP99Ms;
      if (gateway.openAtSample < n || proxy.openAtSample < n || gateway.openAtHalf < gateway.half || proxy.openAtHalf < proxy.half) {
        console.log(`${n} streams: not all streams were flowing while memory was sampled (see 'flowing at mem'): the memory figures are not per open stream.`);
      }
      console.log(
        `${n} streams: gateway ${gateway.marginalRssPerStreamKb.toFixed(1)} KB RSS per open stream from N/2 to N open (aim ≤ 30; bare proxy ${proxy.marginalRssPerStreamKb.toFixed(1)}; ` +
          `${gateway.marginalHeapPerStreamKb.toFixed(1)} KB heap + ${gateway.marginalExternalPerStreamKb.toFixed(1)} KB external of it), ${gateway.heapPerStreamKb.toFixed(1)} KB heap retained per open stream; ` +
          `RSS growth from the warm process to N open ${gateway.rssPerStreamKb.toFixed(1)} KB per stream (${gateway.rssKeptPerStreamKb.toFixed(1)} KB of it stays after all closed); ` +
          `steady state (${gateway.steady.arrivals} arrivals while ${n} were open): event-loop delay p99 ${gateway.steady.eldP99Ms.toFixed(1)} ms (aim ≤ 20 at 5,000), ` +
          `added TTFT p50 ${addedP50.toFixed(1)} ms / p99 ${addedP99.toFixed(1)} ms over the bare proxy (aim p99 ≤ 5 at 1,000); ` +
          `opening burst (${n} in two halves): event-loop delay p99 ${gateway.eldP99Ms.toFixed(1)} ms while they flowed, added TTFT p50 ${burstAddedP50.toFixed(1)} ms / p99 ${burstAddedP99.toFixed(1)} ms`,
      );
    }
  }
} finally {
  await stopAll();
}
