import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupJoinProblem, createCommandCgroup, removeStaleCgroups } from './command-cgroup.ts';
import { getSandboxSupport } from './sandbox-support.ts';

/** A pid no process has now (one that just exited). */
function deadPid(): number {
  const run = spawnSync('/bin/true');
  if (run.pid === undefined) throw new Error('could not start /bin/true');
  return run.pid;
}

describe('per-command cgroups', () => {
  it('are removed in the background once they can be, whatever held them at first', async () => {
    const support = getSandboxSupport();
    const pidsBase = support.processLimit === 'cgroup' ? support.pidsCgroupBase : undefined;
    const cgroup = createCommandCgroup({ pidsBase, maxProcesses: 8, memory: support.memoryCgroupBase, memoryBytes: 64 * 1024 * 1024 });
    if (pidsBase === undefined && support.memoryCgroupBase === undefined) {
      // No writable cgroup here: nothing to make or remove.
      expect(cgroup).toBeUndefined();
      return;
    }
    if (cgroup === undefined) throw new Error('a writable cgroup was probed, but none was made');
    const dirs = cgroup.procsFiles.map((file) => dirname(file));
    // A child cgroup makes rmdir fail (EBUSY) as a process still exiting would.
    for (const dir of dirs) mkdirSync(join(dir, 'held'));
    cgroup.destroy();
    for (const dir of dirs) expect(existsSync(dir)).toBe(true);
    for (const dir of dirs) rmdirSync(join(dir, 'held'));
    for (let i = 0; i < 100 && dirs.some((dir) => existsSync(dir)); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  });

  it('left behind by a process that died are swept: empty, over a minute old, their pid gone', () => {
    // A plain directory stands in for the cgroup base: the sweep only lists, stats and rmdirs.
    const base = mkdtempSync(join(tmpdir(), 'toolwire-cgroup-sweep-'));
    try {
      const dead = deadPid();
      const old = (Date.now() - 5 * 60_000) / 1000;
      // name → [made over a minute ago, expected to stay]
      const cases: [string, boolean, boolean][] = [
        [`toolwire-${dead}-1`, true, false],
        [`toolwire-probe-${dead}-2`, true, false],
        [`toolwire-${dead}-3`, false, true], // Made a moment ago: maybe about to be joined.
        [`toolwire-${process.pid}-4`, true, true], // Ours.
        [`toolwire-${process.ppid}-5`, true, true], // A live process's.
        [`other-${dead}-6`, true, true], // Not ours to touch.
        [`toolwire-${dead}-7`, true, true], // Not empty (below): still in use.
      ];
      for (const [name, aged] of cases) {
        mkdirSync(join(base, name));
        if (aged) utimesSync(join(base, name), old, old);
      }
      mkdirSync(join(base, `toolwire-${dead}-7`, 'busy'));
      removeStaleCgroups(base);
      expect(cases.map(([name]) => [name, existsSync(join(base, name))])).toEqual(cases.map(([name, , stays]) => [name, stays]));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('are joined only where a process can write its pid and then runs there', () => {
    // A plain directory stands in for a cgroup: the check runs the join script, then lists the file.
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cgroup-join-'));
    try {
      writeFileSync(join(dir, 'cgroup.procs'), '');
      expect(cgroupJoinProblem(join(dir, 'cgroup.procs'))).toBeUndefined();
      // A file that cannot be written (EACCES, EBUSY, ENOENT outside the namespace alike).
      mkdirSync(join(dir, 'busy', 'cgroup.procs'), { recursive: true });
      expect(cgroupJoinProblem(join(dir, 'busy', 'cgroup.procs'))).toMatch(/^a test process could not join it \(.*busy\/cgroup\.procs/);
      // Written, but the process is not listed there afterwards.
      expect(cgroupJoinProblem('/dev/null')).toBe('a test process wrote its pid there but did not run in it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
