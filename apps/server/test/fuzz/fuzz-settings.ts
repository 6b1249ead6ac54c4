import type { Parameters } from 'fast-check';

/**
 * How many generated cases each fuzz property runs. In CI a handful (a few seconds per
 * property on a loaded 2-core machine); `pnpm --filter @toolwire/server fuzz` sets
 * `TOOLWIRE_FUZZ_RUNS` far higher. `TOOLWIRE_FUZZ_SEED` (and `TOOLWIRE_FUZZ_PATH`) replay the
 * seed (and path) fast-check prints with a failure.
 */
export function fuzzParameters(ciRuns: number): Parameters<unknown> {
  const runs = Number(process.env.TOOLWIRE_FUZZ_RUNS ?? ciRuns);
  const seed = process.env.TOOLWIRE_FUZZ_SEED;
  const path = process.env.TOOLWIRE_FUZZ_PATH;
  return {
    numRuns: Number.isSafeInteger(runs) && runs > 0 ? runs : ciRuns,
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
    // Each case is a real HTTP exchange: shrinking a failure stays bounded.
    maxSkipsPerRun: 0,
    endOnFailure: false,
  };
}

/** The test timeout that goes with `fuzzParameters`: the fuzz script's many runs take longer. */
export function fuzzTimeoutMs(ciMs: number): number {
  return process.env.TOOLWIRE_FUZZ_RUNS === undefined ? ciMs : 3_600_000;
}
