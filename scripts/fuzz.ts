// Runs the fuzz properties with many more cases than CI does, from a random seed (printed, so a
// failing run can be replayed). From the repository root it runs every package's `fuzz` script,
// one after the other; as a package's `fuzz` script, that package's `*.fuzz.test.ts`.
//
//   pnpm fuzz                        # 2000 cases per property, a random seed
//   pnpm fuzz -- --runs 20000        # more
//   pnpm fuzz -- --seed 1234567      # replay a printed seed
//   pnpm --filter @toolwire/core fuzz
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

// `pnpm fuzz -- --runs 5` passes the `--` on: it is skipped.
const { values } = parseArgs({ args: process.argv.slice(2).filter((arg) => arg !== '--'), options: { runs: { type: 'string', default: '2000' }, seed: { type: 'string' } } });
const runs = Number(values.runs);
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number >= 1, got ${values.runs}`);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${String(values.seed)}`);

function hasFuzzScript(dir: string): boolean {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return false;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, string> };
  return manifest.scripts?.fuzz !== undefined;
}

const isRoot = (JSON.parse(readFileSync('package.json', 'utf8')) as { name?: string }).name === 'toolwire-monorepo';
const env = { ...process.env, TOOLWIRE_FUZZ_RUNS: String(runs), TOOLWIRE_FUZZ_SEED: String(seed) };

console.log(`fuzz: ${runs} cases per property, seed ${seed} (replay with --seed ${seed})`);
let failed = false;
if (isRoot) {
  // Every package's own `fuzz` script, with the runs and the seed in the environment.
  const dirs = ['packages', 'apps'].flatMap((group) => (existsSync(group) ? readdirSync(group).map((name) => join(group, name)) : [])).filter(hasFuzzScript);
  for (const dir of dirs) {
    console.log(`\nfuzz: ${dir}`);
    if (spawnSync('pnpm', ['run', 'fuzz'], { cwd: dir, stdio: 'inherit', env }).status !== 0) failed = true;
  }
} else {
  // A package whose `fuzz` script is this one: its `*.fuzz.test.ts` properties.
  failed = spawnSync('pnpm', ['exec', 'vitest', 'run', '.fuzz.test.ts'], { stdio: 'inherit', env }).status !== 0;
}
process.exit(failed ? 1 : 0);
