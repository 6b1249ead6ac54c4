// A small benchmark harness: every comparison measures its baseline in the same run and
// prints each case's figure beside its ratio to that baseline.
import { Bench } from 'tinybench';

/** One thing to measure. `bytes` (input size per call) turns ops/s into MB/s. */
export interface BenchCase {
  name: string;
  fn: () => unknown;
  bytes?: number;
}

/** A group of cases compared against one baseline measured in the same run. */
export interface Comparison {
  title: string;
  baseline: BenchCase;
  cases: BenchCase[];
  /** Minimum time per case in ms (default 500). */
  timeMs?: number;
}

/** The measured figures of one case. */
export interface CaseResult {
  name: string;
  opsPerSec: number;
  mbPerSec: number | undefined;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  ratio: number;
}

const MB = 1024 * 1024;

function format(n: number): string {
  if (n >= 100) return n.toFixed(0);
  if (n >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

/** Runs a comparison, prints a table, and returns the figures. */
export async function compare(comparison: Comparison): Promise<CaseResult[]> {
  const bench = new Bench({ time: comparison.timeMs ?? 500, warmupTime: 100 });
  const all = [comparison.baseline, ...comparison.cases];
  for (const c of all) bench.add(c.name, c.fn);
  await bench.run();

  const results: CaseResult[] = [];
  let baselineRate = 0;
  all.forEach((c, i) => {
    const task = bench.tasks[i];
    const result = task?.result;
    if (!result || !('latency' in result)) throw new Error(`benchmark "${c.name}" produced no result`);
    const opsPerSec = result.throughput.mean;
    const mbPerSec = c.bytes === undefined ? undefined : (opsPerSec * c.bytes) / MB;
    const rate = mbPerSec ?? opsPerSec;
    if (i === 0) baselineRate = rate;
    results.push({
      name: c.name,
      opsPerSec,
      mbPerSec,
      meanMs: result.latency.mean,
      p50Ms: result.latency.p50 ?? result.latency.mean,
      p99Ms: result.latency.p99 ?? result.latency.mean,
      ratio: rate / baselineRate,
    });
  });
  printTable(comparison.title, results);
  return results;
}

/** Prints figures measured some other way (latencies, load runs) in the same table style. */
export function printTable(title: string, rows: CaseResult[]): void {
  console.log(`\n${title}`);
  const header = ['case', 'ops/s', 'MB/s', 'p50 ms', 'p99 ms', 'vs baseline'];
  const lines = rows.map((r, i) => [
    i === 0 ? `${r.name} (baseline)` : r.name,
    format(r.opsPerSec),
    r.mbPerSec === undefined ? '-' : format(r.mbPerSec),
    format(r.p50Ms),
    format(r.p99Ms),
    i === 0 ? '1.00x' : `${format(r.ratio)}x`,
  ]);
  const widths = header.map((h, col) => Math.max(h.length, ...lines.map((l) => (l[col] ?? '').length)));
  const row = (cells: string[]) => cells.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join('  ');
  console.log(row(header));
  for (const l of lines) console.log(row(l));
}
