// The test command runs every fast-check property from one fixed seed (test/fast-check-seed.ts,
// a setup file of vitest.shared.ts): a clean clone checks the same cases on every run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TEST_COMMAND_SEED } from '../../../test/fast-check-seed.ts';

describe('fast-check in the test command', () => {
  it('runs properties from the fixed seed unless a seed or random runs are asked for', () => {
    const asked = ['TOOLWIRE_FUZZ_SEED', 'TOOLWIRE_FUZZ_RUNS', 'TOOLWIRE_FUZZ_RANDOM'].some((name) => (process.env[name] ?? '') !== '');
    expect(fc.readConfigureGlobal().seed).toBe(asked ? (process.env.TOOLWIRE_FUZZ_SEED === undefined || process.env.TOOLWIRE_FUZZ_SEED === '' ? undefined : Number(process.env.TOOLWIRE_FUZZ_SEED)) : TEST_COMMAND_SEED);
  });
});
