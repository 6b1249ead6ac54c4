// Sandbox costs: warm run latency through the worker pool (against isolated-vm in this
// process, which has no crash isolation), cold start, throughput with 1 and 2 workers,
// and runCommand under bubblewrap against a plain spawn.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ivm from 'isolated-vm';
import { compare, printTable } from '../../../bench/harness.ts';
import type { CaseResult } from '../../../bench/harness.ts';
import { createJsSandbox, runCommand } from '../src/index.ts';

const CODE = 'input.values.reduce((sum, n) => sum + n, 0)';
const INPUT = { values: [1, 2, 3, 4, 5, 6, 7, 8] };

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function row(name: string, samplesMs: number[], baselineOps: number | undefined): CaseResult {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  const ops = 1000 / mean;
  return { name, opsPerSec: ops, mbPerSec: undefined, meanMs: mean, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), ratio: ops / (baselineOps ?? ops) };
}

// 1. Warm latency.
const isolate = new ivm.Isolate({ memoryLimit: 64 });
const pool = createJsSandbox({ poolSize: 1 });
await pool.run('0');
await compare({
  title: 'warm run latency (one run at a time)',
  baseline: {
    name: 'isolated-vm in-process, fresh context',
    fn: async () => {
      const context = await isolate.createContext();
      await context.global.set('input', new ivm.ExternalCopy(INPUT).copyInto());
      await context.eval(CODE, { timeout: 1000, copy: true });
      context.release();
    },
  },
  cases: [
    {
      // What the pool does per run since runs must not outlive their answer.
      name: 'isolated-vm in-process, fresh isolate',
      fn: async () => {
        const own = new ivm.Isolate({ memoryLimit: 64 });
        const context = await own.createContext();
        await context.global.set('input', new ivm.ExternalCopy(INPUT).copyInto());
        await context.eval(CODE, { timeout: 1000, copy: true });
        own.dispose();
      },
    },
    { name: 'createJsSandbox().run via the worker pool', fn: () => pool.run(CODE, { input: INPUT }) },
  ],
});
await pool.dispose();
isolate.dispose();

// 2. Cold start: a new sandbox's first run (spawns a worker process).
const cold: number[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  const sandbox = createJsSandbox({ poolSize: 1 });
  await sandbox.run(CODE, { input: INPUT });
  cold.push(performance.now() - started);
  await sandbox.dispose();
}
printTable('cold start (new sandbox, first run)', [row('first run of a new sandbox', cold, undefined)]);

// 3. Throughput: 400 runs in flight, 1 worker against 2.
const throughput: CaseResult[] = [];
for (const poolSize of [1, 2]) {
  const sandbox = createJsSandbox({ poolSize });
  await Promise.all(Array.from({ length: poolSize * 4 }, () => sandbox.run('0')));
  const n = 400;
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, () => sandbox.run(CODE, { input: INPUT })));
  const elapsed = performance.now() - started;
  const perRun = elapsed / n;
  throughput.push(row(`${poolSize} worker(s), ${n} concurrent runs`, [perRun], throughput[0]?.opsPerSec));
  await sandbox.dispose();
}
printTable('throughput (mean ms per run = 1 / throughput)', throughput);

// 4. Shell: bubblewrap + prlimit + pids cgroup against a plain spawn.
const cwd = mkdtempSync(join(tmpdir(), 'toolwire-bench-'));
await compare({
  title: "runCommand(['true'])",
  baseline: { name: "plain spawn (isolation: 'none')", fn: () => runCommand({ command: ['true'], cwd, isolation: 'none' }) },
  cases: [{ name: 'under bubblewrap', fn: () => runCommand({ command: ['true'], cwd }) }],
  timeMs: 1000,
});
rmSync(cwd, { recursive: true, force: true });
