// Child processes of a bench: each prints one JSON line `{"url": …}` (maybe with `stats`)
// when it is ready; everything else it prints is its own log.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pinnedCommand } from './cpu-pinning.ts';

/** A started child and what it announced. */
export interface BenchProcess {
  child: ChildProcess;
  url: string;
  /** The target's stats side door (RSS, event-loop delay), when it has one. */
  stats: string | undefined;
}

const children = new Set<ChildProcess>();

/** Options of `startProcess` beyond its script, arguments and environment. */
export interface StartProcessOptions {
  /** CPUs to run it on (a taskset list, e.g. "1"); ignored where taskset is missing (see cpu-pinning.ts). */
  cpus?: string;
}

/** Starts `script` (relative to bench/support) with Node and waits for its URL line. */
export async function startProcess(script: string, args: string[] = [], env: Record<string, string> = {}, options: StartProcessOptions = {}): Promise<BenchProcess> {
  // --expose-gc: a target's stats side door can collect garbage before reading memory.
  // TOOLWIRE_BENCH_NODE_FLAGS: more Node flags for every child, for profiling
  // (`--cpu-prof --cpu-prof-dir=/tmp/prof`, `--heapsnapshot-signal=SIGUSR2`).
  const flags = (process.env.TOOLWIRE_BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
  // Under taskset the child keeps taskset's pid (taskset execs it), so `child.pid` is still the target's.
  const [command, commandArgs] = pinnedCommand(options.cpus, process.execPath, ['--conditions=@toolwire/source', '--expose-gc', ...flags, new URL(script, import.meta.url).pathname, ...args]);
  const child = spawn(command, commandArgs, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (child.stdout === null) throw new Error('no stdout');
  for await (const line of createInterface({ input: child.stdout })) {
    if (!line.startsWith('{"url":')) continue;
    const announced = JSON.parse(line) as { url: string; stats?: string };
    // Keep draining its output so the child never blocks on a full pipe (shown with TOOLWIRE_BENCH_CHILD_LOGS).
    if (process.env.TOOLWIRE_BENCH_CHILD_LOGS === undefined) child.stdout.resume();
    else child.stdout.pipe(process.stderr);
    return { child, url: announced.url, stats: announced.stats };
  }
  throw new Error(`${script} exited before printing its URL`);
}

/** Stops one child (SIGTERM, SIGKILL after 5 s). */
export async function stopProcess(target: BenchProcess): Promise<void> {
  const { child } = target;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((child) => stopProcess({ child, url: '', stats: undefined })));
}

/** A target's stats: memory in bytes, event-loop delay percentiles in ms since the last reset. */
export interface TargetStats {
  rss: number;
  heapUsed: number;
  /** The V8 heap's committed size (used and free). */
  heapTotal: number;
  /** Committed bytes per V8 heap space (`new_space`, `old_space`, …). */
  spaces: Record<string, number>;
  /** Resident bytes per V8 heap space: what of `spaces` counts in RSS. */
  physicalSpaces: Record<string, number>;
  /** Memory of C++ objects bound to JS ones (socket and other buffers). */
  external: number;
  /** The young generation's committed size before the last `gc` read (NaN before any): what the load grew it to. */
  youngBeforeGc: number;
  /** CPU time used since the process started (user + system). */
  cpuMs: number;
  /** Time the main thread was runnable but waiting for a CPU (Linux; NaN elsewhere): other processes had the cores. */
  runWaitMs: number;
  /** Bytes allocated on the JS heap since the last reset (POST). */
  allocatedBytes: number;
  /** Time garbage collections took since the last reset (ms). */
  gcPauseMs: number;
  /** Bytes young-generation collections moved to the old generation since the last reset. */
  promotedBytes: number;
  /** Event-loop delay since the last reset (ms): how late a timer repeating every 10 ms ran (the time between its runs, less 10 ms). */
  eldP50Ms: number;
  eldP99Ms: number;
  eldMaxMs: number;
}

/** Options of `readStats`. */
export interface ReadStatsOptions {
  /** Reset the event-loop delay histogram after reading it. */
  reset?: boolean;
  /**
   * Run a full garbage collection in the target before reading its memory (V8's last-resort
   * one, which also shrinks the young generation): what is retained, not garbage.
   */
  gc?: boolean;
}

/** Reads a target's stats. */
export async function readStats(statsURL: string, options: ReadStatsOptions = {}): Promise<TargetStats> {
  const res = await fetch(options.gc === true ? `${statsURL}/?gc=1` : statsURL, { method: options.reset === true ? 'POST' : 'GET' });
  if (!res.ok) throw new Error(`stats: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as TargetStats;
}
