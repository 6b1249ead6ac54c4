// Scale-out: throughput of 1, 2 and 4 gateway processes sharing one Redis (a real
// redis-server on a free loopback port) against one process with the in-memory state,
// requests spread round-robin, 32 in flight, non-streaming, every request carrying a key
// with a rate limit so that each one takes a token from the shared state. What it shows:
// what the shared state costs per request, and how far more processes go on this
// machine (on 2 cores, 4 processes compete with the upstream and this client).
import { Agent, request as httpRequest } from 'node:http';
import { printTable } from '../../../bench/harness.ts';
import type { CaseResult } from '../../../bench/harness.ts';
import { startRedis } from '../test/helpers/redis-server.ts';
import { processCpuMs } from './support/process-cpu.ts';
import { startProcess, stopAll, stopProcess } from './support/processes.ts';
import type { BenchProcess } from './support/processes.ts';

const IN_FLIGHT = 32;
const SECONDS = 3;
const KEY = 'sk-bench-client';

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
function post(url: string): Promise<void> {
  const body = JSON.stringify({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'Say something.' }] });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU time (ms) the gateway processes have used so far; NaN where /proc cannot tell. */
function gatewaysCpuMs(targets: readonly BenchProcess[]): number {
  return targets.reduce((sum, target) => sum + (processCpuMs(target.child.pid) ?? Number.NaN), 0);
}

/** Requests per second over `targets`, round-robin, and the gateways' CPU time per request (µs, all processes together). */
async function throughput(targets: readonly BenchProcess[], ms: number): Promise<{ rate: number; cpuUsPerRequest: number }> {
  let next = 0;
  const send = () => post(`${targets[next++ % targets.length]!.url}/chat/completions`);
  for (let i = 0; i < 200; i++) await send();
  const cpuBefore = gatewaysCpuMs(targets);
  const deadline = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < deadline) {
        await send();
        done++;
      }
    }),
  );
  return { rate: done / (ms / 1000), cpuUsPerRequest: (1000 * (gatewaysCpuMs(targets) - cpuBefore)) / done };
}

const redis = await startRedis();
try {
  const upstream = await startProcess('./upstream-process.ts');
  const best = new Map<string, number>();
  // CPU per request: the least of the rounds, like the throughput (the machine's load only ever adds).
  const cpu = new Map<string, number>();
  const configs: { name: string; processes: number; redis: boolean }[] = [
    { name: '1 process, in-memory state', processes: 1, redis: false },
    { name: '1 process on Redis', processes: 1, redis: true },
    { name: '2 processes on one Redis', processes: 2, redis: true },
    { name: '4 processes on one Redis', processes: 4, redis: true },
  ];
  // Two rounds in turn, best of each: the machine's load drifts more than the differences measured.
  for (const config of [...configs, ...configs]) {
    if (config.redis && 'skip' in redis) {
      if (!best.has(config.name)) console.log(`${config.name}: skipped: ${redis.skip}`);
      best.set(config.name, Number.NaN);
      continue;
    }
    const env: Record<string, string> = { BENCH_KEY: KEY, ...(config.redis && !('skip' in redis) ? { BENCH_REDIS_URL: redis.url } : {}) };
    const targets = await Promise.all(Array.from({ length: config.processes }, () => startProcess('./target-process.ts', ['gateway', upstream.url], env)));
    try {
      const { rate, cpuUsPerRequest } = await throughput(targets, SECONDS * 1000);
      best.set(config.name, Math.max(best.get(config.name) ?? 0, rate));
      cpu.set(config.name, Math.min(cpu.get(config.name) ?? Number.POSITIVE_INFINITY, cpuUsPerRequest));
    } finally {
      await Promise.all(targets.map(stopProcess));
    }
  }
  const baseline = best.get(configs[0]!.name) ?? Number.NaN;
  const rows: CaseResult[] = configs.map(({ name }) => {
    const rate = best.get(name) ?? Number.NaN;
    return { name, opsPerSec: rate, mbPerSec: undefined, meanMs: (1000 * IN_FLIGHT) / rate, p50Ms: Number.NaN, p99Ms: Number.NaN, ratio: rate / baseline };
  });
  printTable(`scale-out: throughput with ${IN_FLIGHT} requests in flight, round-robin, every request rate-limited, best of 2 rounds (ratios to one in-memory process)`, rows);
  // Throughput on a shared 2-core machine moves with its load; the gateways' own CPU time per request shows what the shared state costs.
  console.log(`scale-out: gateway CPU time per request, all processes together (µs): ${configs.map(({ name }) => `${name} ${(cpu.get(name) ?? Number.NaN).toFixed(0)}`).join('; ')}`);
} finally {
  agent.destroy();
  await stopAll();
  if (!('skip' in redis)) await redis.stop();
}
