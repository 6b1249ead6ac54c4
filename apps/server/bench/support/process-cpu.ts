// CPU time of another process, from /proc (Linux): what a target spends per request is
// steadier under a loaded machine than its throughput, which moves with every other process.
import { readFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks; 100 per second on every common configuration.
const TICKS_PER_SECOND = 100;

/** User + system CPU time of process `pid` so far, in ms; `undefined` where /proc cannot tell. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (2nd field) may hold spaces; the fields after its ')' are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/**
 * Time process `pid`'s main thread spent runnable but waiting for a CPU so far (Linux
 * schedstat), in ms: other processes had its core. `undefined` where /proc cannot tell.
 */
export function processRunWaitMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const wait = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(wait) ? wait / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
