// Runs the fuzz properties (`*.fuzz.test.ts`) with many more cases than CI does, from a random
// seed (printed, so a failing run can be replayed). From the repository root it runs every
// package that has fuzz properties, one after the other; from a package, that package.
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

function hasFuzzTests(dir: string): boolean {
  for (const sub of ['src', 'test']) {
    const root = join(dir, sub);
    if (!existsSync(root)) continue;
    const entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
    if (entries.some((entry) => entry.endsWith('.fuzz.test.ts'))) return true;
  }
  return false;
}

const isRoot = (JSON.parse(readFileSync('package.json', 'utf8')) as { name?: string }).name === 'toolwire-monorepo';
const dirs = isRoot
  ? ['packages', 'apps'].flatMap((group) => (existsSync(group) ? readdirSync(group).map((name) => join(group, name)) : [])).filter(hasFuzzTests)
  : ['.'];

console.log(`fuzz: ${runs} cases per property, seed ${seed} (replay with --seed ${seed})`);
let failed = false;
for (const dir of dirs) {
  console.log(`\nfuzz: ${dir}`);
  const run = spawnSync('pnpm', ['exec', 'vitest', 'run', '--reporter=default', '.fuzz.test.ts'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, TOOLWIRE_FUZZ_RUNS: String(runs), TOOLWIRE_FUZZ_SEED: String(seed) },
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
