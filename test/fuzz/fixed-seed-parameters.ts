// fast-check parameters for a property that keeps its own fixed seed in the test command (a few
// runs), and runs many from a random seed under `pnpm run fuzz` (TOOLWIRE_FUZZ_RUNS). fast-check
// prints the seed and the path of a failure, to replay it with TOOLWIRE_FUZZ_SEED.
import type fc from 'fast-check';

const runs = Number(process.env.TOOLWIRE_FUZZ_RUNS ?? '0');
const seed = process.env.TOOLWIRE_FUZZ_SEED;

/** Whether this is a long fuzzing session rather than the test suite. */
export const FUZZING = runs > 0;

/** fast-check parameters for a property worth `ciRuns` runs in the suite. */
export function fuzzParameters<T>(ciRuns: number, fixedSeed: number): fc.Parameters<T> {
  if (!FUZZING) return { numRuns: ciRuns, seed: seed === undefined ? fixedSeed : Number(seed) };
  const chosen = seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(seed);
  console.log(`fuzzing ${runs} runs with seed ${chosen}`);
  return { numRuns: runs, seed: chosen };
}

/** A test's time limit for `ciRuns` runs of at most `perRunMs` each (or the fuzzing session's). */
export function fuzzTimeout(ciRuns: number, perRunMs: number): number {
  return (FUZZING ? runs : ciRuns) * perRunMs + 10_000;
}
