/** CPU time a worker had used (ms) when the idle watch took its baseline, and when (ms). */
export interface IdleBaseline {
  cpuMs: number;
  at: number;
}

/** What the idle watch saw of one idle worker. */
export interface IdleSample {
  /** Clock now (ms). */
  now: number;
  /** The worker's CPU time so far (ms). */
  cpuMs: number;
  rssBytes: number;
}

/** Limits of an idle worker. */
export interface IdleLimits {
  maxRssBytes: number;
  /** CPU an idle worker may use per window. */
  maxCpuMs: number;
  windowMs: number;
}

/** The verdict on an idle worker: keep it (with the baseline to keep), or replace it and why. */
export type IdleVerdict = { action: 'keep'; baseline: IdleBaseline } | { action: 'replace'; reason: 'memory' | 'cpu' };

/**
 * Judges an idle worker. An idle worker has nothing to run (each run's isolate is gone once
 * it answers), so one that burns CPU or grows past the memory limit is running leftovers
 * and is replaced. CPU is compared over whole windows so the few ms of preparing the next
 * isolate never count against it.
 */
export function judgeIdleWorker(sample: IdleSample, baseline: IdleBaseline | undefined, limits: IdleLimits): IdleVerdict {
  if (sample.rssBytes > limits.maxRssBytes) return { action: 'replace', reason: 'memory' };
  const current = { cpuMs: sample.cpuMs, at: sample.now };
  if (baseline === undefined || sample.now - baseline.at < limits.windowMs) return { action: 'keep', baseline: baseline ?? current };
  if (sample.cpuMs - baseline.cpuMs > limits.maxCpuMs) return { action: 'replace', reason: 'cpu' };
  return { action: 'keep', baseline: current };
}
