// How many runs a fuzz property makes, and from which seed. The test command runs a few per
// property from its fixed seed (test/fast-check-seed.ts; fast-check prints the seed and the
// shrunk counterexample on a failure); `pnpm fuzz` sets TOOLWIRE_FUZZ_RUNS to run many more, and TOOLWIRE_FUZZ_SEED
// replays a printed seed.
import type { Parameters } from 'fast-check';

function envInteger(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return value;
}

/**
 * fast-check parameters for a property: `ciRuns` runs unless TOOLWIRE_FUZZ_RUNS says more
 * (scaled by the property's weight, so slow properties stay bounded), the seed from
 * TOOLWIRE_FUZZ_SEED when given.
 */
export function fuzzParameters<T>(ciRuns: number, weight = 1): Parameters<T> {
  const runs = envInteger('TOOLWIRE_FUZZ_RUNS');
  const seed = envInteger('TOOLWIRE_FUZZ_SEED');
  const numRuns = runs === undefined ? ciRuns : Math.max(ciRuns, Math.round(runs * weight));
  return { numRuns, ...(seed === undefined ? {} : { seed }) };
}

/** A vitest timeout for a property of `ciRuns` runs of at most `perRunMs` each. */
export function fuzzTimeout(ciRuns: number, perRunMs: number, weight = 1): number {
  return fuzzParameters(ciRuns, weight).numRuns! * perRunMs + 20_000;
}
