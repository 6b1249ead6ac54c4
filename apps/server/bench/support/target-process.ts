// One measured target in its own process: `proxy` (a bare node:http proxy that forwards
// bytes) or `gateway` (the Toolwire gateway), both in front of the same upstream;
// `gateway-local` (the gateway with an in-process model, to isolate its own cost); or
// `sdk-proxy` (a bare node:http proxy whose upstream client is the `openai` SDK, with the
// gateway's fetch: the ceiling of any gateway that calls its upstream through the SDK).
import { readFileSync } from 'node:fs';
import { Agent, createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler, getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import type { ChatModel } from '@toolwire/core';
import OpenAI from 'openai';
import { pino } from 'pino';
import { createServer, hashApiKey } from '../../src/index.ts';
import { DEFAULT_LISTEN_SOCKETS, openExtraListeners } from '../../src/extra-listeners.ts';
import { createNodeHttpFetch } from '../../src/models/node-http-fetch.ts';
// The time-to-first-token phases cost every request diagnostics-channel messages and an
// AsyncLocalStorage entry: on by default (the capacity bench reads them), off with
// TOOLWIRE_BENCH_PHASES=0 (the peer bench, where the peer runs without them).
const streamPhases = process.env.TOOLWIRE_BENCH_PHASES === '0' ? undefined : await import('./stream-phases.ts');

// A side door for the capacity bench: this process's memory, CPU time and event-loop delay
// (ms), on its own port. POST resets the delay histogram; `?gc=1` runs a full garbage
// collection first (the bench starts targets with --expose-gc), so that the memory read is
// what is retained, not garbage the collector has not got to yet.
// Node's histogram records the time between the callbacks of a timer repeating every
// `resolution` ms, so even an idle loop reads 10 ms: the delay is that time minus the
// resolution (how late the timer ran), as APM agents report it.
const ELD_RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
delay.enable();
const lateness = (ns: number): number => Math.max(0, ns / 1e6 - ELD_RESOLUTION_MS);
const collect = (globalThis as { gc?: (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void }).gc;
// The young generation's committed size when the last collection was asked for: what it had grown to under the load.
let youngBeforeGc = Number.NaN;
// Bytes allocated on the JS heap since the last reset: what each collection found used
// before it, minus what the previous one left, summed (a count the CPU's contention does not skew).
let gcProfiler: GCProfiler | undefined;
let usedAfterLast = 0;
let allocated = 0;
// Also since the last reset: the collections' cost (main-thread pause, ms), and what the
// young-generation collections moved to the old generation (bytes): objects that outlived a
// collection they should not have, to be copied now and collected by a full collection later.
let gcPauseMs = 0;
let promoted = 0;
const oldSpaceUsed = (spaces: { spaceName: string; spaceUsedSize: number }[]): number => spaces.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;
const readAllocated = (): number => {
  const report = gcProfiler?.stop();
  for (const gc of report?.statistics ?? []) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - usedAfterLast;
    usedAfterLast = gc.afterGC.heapStatistics.usedHeapSize;
    gcPauseMs += gc.cost / 1000;
    if (gc.gcType === 'Scavenge') promoted += Math.max(0, oldSpaceUsed(gc.afterGC.heapSpaceStatistics) - oldSpaceUsed(gc.beforeGC.heapSpaceStatistics));
  }
  const used = getHeapStatistics().used_heap_size;
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  return allocated + used - usedAfterLast;
};
const resetAllocated = (): void => {
  gcProfiler?.stop();
  gcProfiler = new GCProfiler();
  gcProfiler.start();
  allocated = 0;
  gcPauseMs = 0;
  promoted = 0;
  usedAfterLast = getHeapStatistics().used_heap_size;
};
const stats = createHttpServer((req, res) => {
  if (req.method === 'POST') {
    delay.reset();
    resetAllocated();
  }
  if (req.url?.includes('gc=1') === true) {
    if (collect === undefined) {
      res.writeHead(500).end('start this process with --expose-gc');
      return;
    }
    youngBeforeGc = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? Number.NaN;
    // V8's collection under memory pressure: everything collectable, then the young
    // generation shrunk to its minimum and free pages given back. A plain full collection
    // keeps the young generation at whatever size the allocation rate grew it to (up to 2 x
    // 64 MB here), which RSS would then count whatever the streams hold.
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  }
  const params = new URL(req.url ?? '/', 'http://stats').searchParams;
  // Where time to first token went (see stream-phases.ts): `?phases=reset` before the streams, `?phases=1` after.
  const phases = params.get('phases');
  if (phases !== null) {
    if (streamPhases === undefined) {
      res.writeHead(404).end('phases are off (TOOLWIRE_BENCH_PHASES=0)');
      return;
    }
    if (phases === 'reset') streamPhases.resetPhases();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(streamPhases.phaseReport()));
    return;
  }
  const snapshot = params.get('snapshot');
  if (snapshot !== null) {
    // A heap snapshot for the capacity bench's TOOLWIRE_BENCH_HEAP_SNAPSHOT (slow: seconds).
    const path = writeHeapSnapshot(join(tmpdir(), `capacity-${process.pid}-${snapshot.replace(/[^a-z0-9-]/giu, '')}.heapsnapshot`));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ snapshot: path }));
    return;
  }
  const memory = process.memoryUsage();
  // Linux: the main thread's time on a CPU and time runnable but waiting for one (ns), from the scheduler.
  const sched = readSchedstat();
  const cpu = process.cpuUsage();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      // Committed size of each V8 heap space (new, old, code, large objects…), in bytes.
      spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size])),
      // Resident size of each: what of the committed size is in RSS.
      physicalSpaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size])),
      external: memory.external,
      youngBeforeGc,
      cpuMs: (cpu.user + cpu.system) / 1000,
      runWaitMs: sched.waitMs,
      allocatedBytes: readAllocated(),
      gcPauseMs,
      promotedBytes: promoted,
      eldP50Ms: lateness(delay.percentile(50)),
      eldP99Ms: lateness(delay.percentile(99)),
      eldMaxMs: lateness(delay.max),
    }),
  );
});
function readSchedstat(): { waitMs: number } {
  try {
    const [, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return { waitMs: Number(wait) / 1e6 };
  } catch {
    return { waitMs: Number.NaN };
  }
}

const statsURL = await new Promise<string>((resolve) => {
  stats.listen(0, '127.0.0.1', () => {
    const address = stats.address();
    resolve(address !== null && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : '');
  });
});

function announce(url: string): void {
  process.stdout.write(`${JSON.stringify({ url, stats: statsURL })}\n`);
}

function printURL(server: ReturnType<typeof createHttpServer>): void {
  // The gateway's default backlog and listening sockets: the proxies face the same bursts of
  // connections and take them as fast (Node accepts one connection per socket per turn of its loop).
  const backlog = 4096;
  server.listen({ port: 0, host: '127.0.0.1', backlog, ...(DEFAULT_LISTEN_SOCKETS > 1 ? { reusePort: true } : {}) }, () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const ready = DEFAULT_LISTEN_SOCKETS > 1 ? openExtraListeners({ server, host: '127.0.0.1', port: address.port, count: DEFAULT_LISTEN_SOCKETS - 1, backlog }) : Promise.resolve();
    void ready.then(() => announce(`http://127.0.0.1:${address.port}/v1`));
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk as string;
  return text;
}

const [kind, upstreamURL] = process.argv.slice(2);
if (upstreamURL === undefined) throw new Error('usage: target-process.ts proxy|gateway <upstream-url>');

if (kind === 'proxy') {
  const port = Number(new URL(upstreamURL).port);
  // Uncapped like the gateway's: the capacity bench holds thousands of streams open at once.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const proxy = createHttpServer((req, res) => {
    const up = httpRequest({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers, agent }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    // A client that leaves (the capacity bench's steady state replaces streams) ends the upstream request too, as the gateway does.
    res.once('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    // An upstream request cut before its answer (the client left first) fails with 'socket hang
    // up': without a listener that would end this process.
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  printURL(proxy);
  process.on('SIGTERM', () => process.exit(0));
} else if (kind === 'sdk-proxy') {
  const client = new OpenAI({ apiKey: 'sk-bench', baseURL: `${upstreamURL}/v1`, fetch: createNodeHttpFetch({ maxSockets: Infinity }) });
  const proxy = createHttpServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await readBody(req)) as OpenAI.ChatCompletionCreateParams;
      if (body.stream !== true) {
        const completion = await client.chat.completions.create({ ...body, stream: false });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completion));
        return;
      }
      // A client that leaves ends the upstream call too, as the gateway does.
      const left = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) left.abort();
      });
      const stream = await client.chat.completions.create({ ...body, stream: true }, { signal: left.signal });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for await (const chunk of stream) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end('data: [DONE]\n\n');
    })().catch((error: unknown) => {
      res.writeHead(502);
      res.end(String(error));
    });
  });
  printURL(proxy);
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
  announce(url);
  process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)));
} else {
  // Logs at warn: per-request info lines would measure the log sink, not the gateway.
  // BENCH_REDIS_URL puts the state on Redis; BENCH_KEY adds a client key with a (never
  // reached) rate limit, so that every request takes a token from the state.
  const redisURL = process.env.BENCH_REDIS_URL;
  const benchKey = process.env.BENCH_KEY;
  const gateway = createServer({
    logger: pino({ level: 'warn' }),
    providers: { openai: { apiKey: 'sk-bench', baseURL: `${upstreamURL}/v1` } },
    limits: { shutdownGraceMs: 1000 },
    ...(redisURL === undefined ? {} : { state: { redis: { url: redisURL } } }),
    ...(benchKey === undefined ? {} : { keys: [{ id: 'bench', keyHash: hashApiKey(benchKey), requestsPerMinute: 100_000_000 }] }),
  });
  const url = await gateway.listen({ port: 0 });
  announce(url);
  process.on('SIGTERM', () => void gateway.close().then(() => process.exit(0)));
}
