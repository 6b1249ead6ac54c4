// Shared by tests that check nothing a run started outlives it.
import { readdirSync, readFileSync } from 'node:fs';

/** Host processes whose command line holds `marker` (sandboxed ones included: their PID namespace is a child of ours). */
export function processesWith(marker: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) count++;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}
