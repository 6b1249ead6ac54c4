import { describe, expect, it } from 'vitest';
import { createJsSandbox, runCommand, shellTool, spawnSandboxed } from '../src/index.ts';
import { isValidDurationMs, MAX_DURATION_MS } from '../src/policy/check-duration.ts';

describe('limits in milliseconds', () => {
  it('accepts 1 ms to a day, nothing Node would turn into a 1 ms timer', () => {
    expect([1, 1000, MAX_DURATION_MS].every(isValidDurationMs)).toBe(true);
    expect([0, -1, Number.NaN, Infinity, 2 ** 31, MAX_DURATION_MS + 1].some(isValidDurationMs)).toBe(false);
  });

  it('refuses an unusable timeout with a message naming the option, before anything runs', async () => {
    await expect(runCommand({ command: ['true'], cwd: '/tmp', timeoutMs: 2 ** 31 })).rejects.toThrow(/runCommand: `timeoutMs` must be a number of milliseconds from 1 to 86400000 \(a day\), got 2147483648/);
    expect(() => spawnSandboxed({ command: ['true'], cwd: '/tmp', maxLifetimeMs: Number.NaN })).toThrow(/maxLifetimeMs/);
    expect(() => shellTool({ root: '/tmp', timeoutMs: -5 })).toThrow(/shellTool: `timeoutMs`/);
    expect(() => createJsSandbox({ timeoutMs: 0 })).toThrow(/createJsSandbox: `timeoutMs`/);
    await expect(runCommand({ command: ['true'], cwd: '/tmp', limits: { totalMemoryMb: 0 } })).rejects.toThrow(/`limits.totalMemoryMb` must be a number of MB ≥ 1, got 0/);
  });

  it('answers a JavaScript run with an unusable per-run timeout with an error result, without running it', async () => {
    const sandbox = createJsSandbox({ poolSize: 1 });
    try {
      expect(await sandbox.run('1', { timeoutMs: Infinity })).toMatchObject({ ok: false, error: { kind: 'error', message: expect.stringMatching(/The run's `timeoutMs`/) } });
    } finally {
      await sandbox.dispose();
    }
  });
});
