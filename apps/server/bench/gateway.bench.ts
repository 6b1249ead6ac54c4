// The gateway against a bare Node HTTP proxy and a peer gateway (Portkey's, from npm) in
// front of the same local upstream (a fake OpenAI server on 127.0.0.1), in one run: added
// latency p50/p99 over calling the upstream directly, and throughput with 32 requests in
// flight, for non-streaming and streaming requests. Upstream, proxies and gateways each
// run in their own process; this one is the client.
//
// Aims: p50 added latency under 1 ms; at least 2x Portkey's throughput with a lower p99.
// The old aim of 0.70x a bare byte proxy is retired: no gateway that calls its upstream
// through the `openai` SDK can reach it (an empty SDK-backed proxy reaches ~0.2-0.5x), so
// the SDK-only proxy row is the ceiling and the gateway is reported as a share of it.
//
// Alone (about a minute), in apps/server: node --conditions=@toolwire/source --expose-gc bench/gateway.bench.ts
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Agent, request as httpRequest } from 'node:http';
import { compare, printTable } from '../../../bench/harness.ts';
import { startPortkey } from './support/portkey-process.ts';
import { processCpuMs } from './support/process-cpu.ts';
import type { CaseResult } from '../../../bench/harness.ts';

const children: ChildProcess[] = [];

/** The process id behind each started target's URL, for its CPU time. */
const pids = new Map<string, number | undefined>();

async function start(script: string, args: string[] = []): Promise<string> {
  const child = spawn(process.execPath, ['--conditions=@toolwire/source', new URL(script, import.meta.url).pathname, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  if (child.stdout === null) throw new Error('no stdout');
  for await (const line of createInterface({ input: child.stdout })) {
    // Other JSON lines are the child's logs.
    if (line.startsWith('{"url":')) {
      const { url } = JSON.parse(line) as { url: string };
      pids.set(url, child.pid);
      return url;
    }
  }
  throw new Error(`${script} exited before printing its URL`);
}

const upstream = await start('./support/upstream-process.ts');
const portkey = await startPortkey();
const proxyBase = await start('./support/target-process.ts', ['proxy', upstream]);
const gatewayBase = await start('./support/target-process.ts', ['gateway', upstream]);
const localBase = await start('./support/target-process.ts', ['gateway-local', upstream]);
const sdkProxyBase = await start('./support/target-process.ts', ['sdk-proxy', upstream]);
const targetPids: Record<string, number | undefined> = {
  proxy: pids.get(proxyBase),
  gateway: pids.get(gatewayBase),
  local: pids.get(localBase),
  sdkProxy: pids.get(sdkProxyBase),
  portkey: portkey.pid,
};

/** This (client) process's CPU time so far, in ms. */
function clientCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
function post(url: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const body = (model: string, stream: boolean) => JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'Say something.' }] });
const targets = (stream: boolean) => ({
  direct: () => post(`${upstream}/v1/chat/completions`, body('gpt-fake', stream)),
  proxy: () => post(`${proxyBase}/chat/completions`, body('gpt-fake', stream)),
  gateway: () => post(`${gatewayBase}/chat/completions`, body('openai/gpt-fake', stream)),
  local: () => post(`${localBase}/chat/completions`, body('openai/gpt-fake', stream)),
  sdkProxy: () => post(`${sdkProxyBase}/chat/completions`, body('gpt-fake', stream)),
  portkey: () => post(`${portkey.url}/chat/completions`, body('gpt-fake', stream), portkey.headers(upstream)),
});

async function throughput(fn: () => Promise<unknown>, inFlight: number, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        await fn();
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

/**
 * Requests per second of each target, measured in turns of `sliceMs`, `rounds` times over,
 * and the CPU time its process spent per request meanwhile (ms; NaN where /proc cannot tell).
 */
async function interleavedThroughput(
  fns: Record<string, () => Promise<unknown>>,
  inFlight: number,
  rounds: number,
  sliceMs: number,
): Promise<{ rates: Record<string, number>; cpuMsPerRequest: Record<string, number>; sharedCpuMsPerRequest: Record<string, number> }> {
  const done: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  // The CPU time this client and the upstream spent during each target's slices: on a
  // saturated machine throughput follows the sum of every process's CPU per request.
  const shared: Record<string, number> = {};
  const upstreamPid = pids.get(upstream);
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      const before = processCpuMs(targetPids[name]);
      const sharedBefore = (processCpuMs(upstreamPid) ?? Number.NaN) + clientCpuMs();
      const count = (await throughput(fn, inFlight, sliceMs)) * (sliceMs / 1000);
      const after = processCpuMs(targetPids[name]);
      shared[name] = (shared[name] ?? 0) + (processCpuMs(upstreamPid) ?? Number.NaN) + clientCpuMs() - sharedBefore;
      done[name] = (done[name] ?? 0) + count;
      cpu[name] = (cpu[name] ?? 0) + (before === undefined || after === undefined ? Number.NaN : after - before);
    }
  }
  const rates: Record<string, number> = {};
  const cpuMsPerRequest: Record<string, number> = {};
  const sharedCpuMsPerRequest: Record<string, number> = {};
  for (const [name, count] of Object.entries(done)) {
    rates[name] = count / ((rounds * sliceMs) / 1000);
    cpuMsPerRequest[name] = (cpu[name] ?? Number.NaN) / count;
    sharedCpuMsPerRequest[name] = (shared[name] ?? Number.NaN) / count;
  }
  return { rates, cpuMsPerRequest, sharedCpuMsPerRequest };
}

try {
  for (const stream of [false, true]) {
    const kind = stream ? 'streaming' : 'non-streaming';
    const t = targets(stream);
    // Portkey 1.15.2 answers 500 to streaming requests to a custom host on Node: recorded, not hidden.
    const portkeyWorks = await t.portkey().then(
      () => true,
      (error: unknown) => {
        console.log(`${kind}: Portkey ${portkey.version} fails this request (${error instanceof Error ? error.message.slice(0, 160) : String(error)}); its ${kind} rows are left out`);
        return false;
      },
    );
    // Warm-up: JIT, keep-alive sockets, the SDK client.
    for (let i = 0; i < 300; i++) await Promise.all([t.direct(), t.proxy(), t.gateway(), t.local(), t.sdkProxy(), ...(portkeyWorks ? [t.portkey()] : [])]);
    const [direct, viaProxy, viaGateway, viaPortkey] = await compare({
      title: `${kind}: one request at a time (latency)`,
      baseline: { name: 'upstream direct', fn: t.direct },
      cases: [
        { name: 'bare node:http proxy', fn: t.proxy },
        { name: 'toolwire gateway', fn: t.gateway },
        ...(portkeyWorks ? [{ name: `portkey gateway ${portkey.version}`, fn: t.portkey }] : []),
      ],
      timeMs: 2000,
    });
    if (!direct || !viaProxy || !viaGateway) throw new Error('missing results');
    const added = (r: CaseResult) => `p50 ${(r.p50Ms - direct.p50Ms).toFixed(3)} ms, p99 ${(r.p99Ms - direct.p99Ms).toFixed(3)} ms`;
    console.log(
      `${kind} added latency over the upstream: bare proxy ${added(viaProxy)}; gateway ${added(viaGateway)}` +
        `${viaPortkey ? `; portkey ${added(viaPortkey)}` : '; portkey: failed (see above)'} (aim: gateway p50 < 1 ms, p99 below Portkey's)`,
    );

    const IN_FLIGHT = 32;
    // Interleaved in 750 ms slices, 4 rounds: the machine's load drifts over seconds, and
    // back-to-back 3 s windows once put the same target at 0.5x and 1.9x of another.
    const { rates, cpuMsPerRequest, sharedCpuMsPerRequest } = await interleavedThroughput(
      { proxy: t.proxy, gateway: t.gateway, local: t.local, sdkProxy: t.sdkProxy, ...(portkeyWorks ? { portkey: t.portkey } : {}) },
      IN_FLIGHT,
      4,
      750,
    );
    const proxyRate = rates.proxy ?? Number.NaN;
    const gatewayRate = rates.gateway ?? Number.NaN;
    const localRate = rates.local ?? Number.NaN;
    const sdkProxyRate = rates.sdkProxy ?? Number.NaN;
    const portkeyRate = rates.portkey ?? Number.NaN;
    const row = (name: string, rate: number): CaseResult => ({
      name,
      opsPerSec: rate,
      mbPerSec: undefined,
      meanMs: (1000 * IN_FLIGHT) / rate,
      p50Ms: Number.NaN,
      p99Ms: Number.NaN,
      ratio: rate / proxyRate,
    });
    printTable(`${kind}: throughput with ${IN_FLIGHT} requests in flight, interleaved (ratios to the bare proxy)`, [
      row('bare node:http proxy', proxyRate),
      row('toolwire gateway', gatewayRate),
      // Diagnostics. No upstream hop at all: the gateway's own ceiling. A bare proxy that
      // calls the upstream through the openai SDK (as the gateway does, same fetch) and does
      // nothing else: the ceiling of any SDK-backed gateway; the gap between it and the bare
      // proxy is the SDK's per-request cost, the gap between it and the gateway is ours.
      row('gateway, in-process model (no upstream)', localRate),
      row('bare proxy calling the upstream via the openai SDK (ceiling)', sdkProxyRate),
      ...(portkeyWorks ? [row(`portkey gateway ${portkey.version}`, portkeyRate)] : []),
    ]);
    // Throughput moves with everything else the machine runs; the CPU time a target's own
    // process spends per request moves much less, so it is printed beside it.
    const cpuUs = (name: string) => (1000 * (cpuMsPerRequest[name] ?? Number.NaN)).toFixed(0);
    console.log(
      `${kind}: CPU time per request in the target's process (µs): bare proxy ${cpuUs('proxy')}, gateway ${cpuUs('gateway')}, ` +
        `gateway in-process model ${cpuUs('local')}, SDK-only proxy ${cpuUs('sdkProxy')}${portkeyWorks ? `, portkey ${cpuUs('portkey')}` : ''}`,
    );
    console.log(`${kind}: the gateway reaches ${((100 * gatewayRate) / sdkProxyRate).toFixed(0)}% of the SDK-only proxy's throughput (its ceiling)`);
    if (portkeyWorks) {
      const cpuRatio = (cpuMsPerRequest.portkey ?? Number.NaN) / (cpuMsPerRequest.gateway ?? Number.NaN);
      console.log(`${kind}: the gateway's throughput is ${(gatewayRate / portkeyRate).toFixed(2)}x Portkey's (aim ≥ 2x); it spends ${cpuRatio.toFixed(2)}x less CPU per request`);
      const sharedUs = (name: string) => (1000 * (sharedCpuMsPerRequest[name] ?? Number.NaN)).toFixed(0);
      console.log(
        `${kind}: beside each request the bench client and the upstream spent ${sharedUs('gateway')} µs of CPU (gateway slices) and ${sharedUs('portkey')} µs (Portkey slices); ` +
          `when other work saturates the cores, the throughput ratio approaches the ratio of these sums, not of the targets' own CPU`,
      );
    }
    else console.log(`${kind}: no Portkey comparison (Portkey ${portkey.version} answered an error, above)`);
  }
} finally {
  agent.destroy();
  for (const child of children) child.kill('SIGTERM');
  await portkey.stop();
}
