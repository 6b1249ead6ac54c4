// A vitest setup file (vitest.shared.ts) for every package's tests: the seed of every
// fast-check property that does not choose its own.
//
// The test command (CI included) runs each property from one fixed seed, so a run on a clean
// clone checks the same cases every time and a property can only fail through a change, not
// through the luck of a draw. Random seeds are for `pnpm fuzz` (which sets TOOLWIRE_FUZZ_RUNS)
// or TOOLWIRE_FUZZ_RANDOM=1; TOOLWIRE_FUZZ_SEED replays a seed that fast-check printed.
import fc from 'fast-check';

/** The seed of the test command's runs. */
export const TEST_COMMAND_SEED = 20261125;

function seedOf(env: NodeJS.ProcessEnv): number | undefined {
  const given = env.TOOLWIRE_FUZZ_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`TOOLWIRE_FUZZ_SEED must be an integer, got ${JSON.stringify(given)}`);
    return seed;
  }
  const random = (env.TOOLWIRE_FUZZ_RUNS ?? '') !== '' || (env.TOOLWIRE_FUZZ_RANDOM ?? '') !== '';
  return random ? undefined : TEST_COMMAND_SEED;
}

const seed = seedOf(process.env);
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
