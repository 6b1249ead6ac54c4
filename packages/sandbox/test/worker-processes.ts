import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of this process's sandbox worker children whose command line holds `marker` (found
 * through /proc). Test files may share a process, so each sandbox under watch gets an
 * allowed domain of its own as the marker: it travels in the worker's config argument.
 */
export function workerPids(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('js-worker') && cmdline.includes(marker)) pids.push(Number(entry));
    } catch {
      // The process went away while we looked.
    }
  }
  return pids;
}

/** User plus system CPU time of a process in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process in MB. */
export function rssMb(pid: number): number {
  return (Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096) / (1024 * 1024);
}

/**
 * Watches the given processes for `ms`: the CPU each used in that time and its largest
 * resident memory. A process that disappears (killed, replaced) counts as using nothing more.
 */
export async function observe(pids: readonly number[], ms: number): Promise<{ cpuMs: number; maxRssMb: number }> {
  const alive = (pid: number) => {
    try {
      return { cpu: cpuMs(pid), rss: rssMb(pid) };
    } catch {
      return undefined;
    }
  };
  const start = new Map(pids.map((pid) => [pid, alive(pid)?.cpu ?? 0]));
  const last = new Map(start);
  let maxRssMb = 0;
  const until = performance.now() + ms;
  while (performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const pid of pids) {
      const now = alive(pid);
      if (now === undefined) continue;
      last.set(pid, now.cpu);
      maxRssMb = Math.max(maxRssMb, now.rss);
    }
  }
  let used = 0;
  for (const pid of pids) used += (last.get(pid) ?? 0) - (start.get(pid) ?? 0);
  return { cpuMs: used, maxRssMb };
}
