import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getSandboxSupport, probeSandboxSupport } from './sandbox-support.ts';

describe('the sandbox probe', () => {
  it('takes a cgroup only if a test process could join it, and says so', () => {
    const support = getSandboxSupport();
    // Every writable cgroup passed over here would be listed.
    if (support.processLimit === 'cgroup' || support.memoryLimit === 'cgroup') expect(support.cgroupProblems).toEqual([]);
  });

  it('falls back as if no cgroup were writable where joining one fails, with the reason', () => {
    const usual = getSandboxSupport();
    // The test cgroups are made and set up as usual; only the join (the same script that
    // moves each command) fails, as it would outside our cgroup namespace or across a
    // delegation boundary.
    const support = probeSandboxSupport({ procsFile: 'missing/cgroup.procs' });
    expect(support).toMatchObject({ pidsCgroupBase: undefined, memoryCgroupBase: undefined, memoryLimit: 'per-process' });
    const fallback = !usual.bubblewrap.ok ? 'none' : process.geteuid?.() === 0 ? ['uid', 'none'] : 'rlimit';
    if (Array.isArray(fallback)) expect(fallback).toContain(support.processLimit);
    else expect(support.processLimit).toBe(fallback);
    if (support.processLimit === 'uid') expect(support.hostUid).toBe(65534);
    if (usual.pidsCgroupBase !== undefined || usual.memoryCgroupBase !== undefined) {
      // A writable cgroup was there: each one passed over is named, with the shell's reason.
      expect(support.cgroupProblems.length).toBeGreaterThan(0);
      for (const problem of support.cgroupProblems) expect(problem).toMatch(/a test process could not join it \(.*missing\/cgroup\.procs/);
    } else {
      expect(support.cgroupProblems).toEqual([]);
    }
    // The test cgroups are gone.
    for (const base of [usual.pidsCgroupBase, usual.memoryCgroupBase?.path]) {
      if (base === undefined || !existsSync(base)) continue;
      expect(readdirSync(base).filter((name) => name.startsWith(`toolwire-probe-${process.pid}-`))).toEqual([]);
    }
  });
});
