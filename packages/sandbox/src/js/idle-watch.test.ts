import { describe, expect, it } from 'vitest';
import { judgeIdleWorker } from './idle-watch.ts';

const limits = { maxRssBytes: 300, maxCpuMs: 100, windowMs: 1000 };

describe('judgeIdleWorker', () => {
  it('takes a baseline first, then keeps a quiet worker window after window', () => {
    const first = judgeIdleWorker({ now: 0, cpuMs: 500, rssBytes: 100 }, undefined, limits);
    expect(first).toEqual({ action: 'keep', baseline: { cpuMs: 500, at: 0 } });
    const inside = judgeIdleWorker({ now: 250, cpuMs: 590, rssBytes: 100 }, { cpuMs: 500, at: 0 }, limits);
    expect(inside).toEqual({ action: 'keep', baseline: { cpuMs: 500, at: 0 } });
    const next = judgeIdleWorker({ now: 1000, cpuMs: 560, rssBytes: 100 }, { cpuMs: 500, at: 0 }, limits);
    expect(next).toEqual({ action: 'keep', baseline: { cpuMs: 560, at: 1000 } });
  });

  it('replaces a worker that keeps using CPU between runs, even a slowed one', () => {
    for (const used of [1000, 250, 110]) {
      expect(judgeIdleWorker({ now: 1200, cpuMs: used, rssBytes: 100 }, { cpuMs: 0, at: 0 }, limits)).toEqual({ action: 'replace', reason: 'cpu' });
    }
  });

  it('replaces a worker past the memory limit at once, baseline or not', () => {
    expect(judgeIdleWorker({ now: 10, cpuMs: 0, rssBytes: 301 }, undefined, limits)).toEqual({ action: 'replace', reason: 'memory' });
    expect(judgeIdleWorker({ now: 10, cpuMs: 0, rssBytes: 301 }, { cpuMs: 0, at: 0 }, limits)).toEqual({ action: 'replace', reason: 'memory' });
  });
});
