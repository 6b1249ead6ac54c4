// Runs benchmarks one file at a time (so they do not compete for the 2 cores), each in
// its own Node process: `node bench/run.ts` runs every package's `bench/*.bench.ts`;
// `node bench/run.ts <package-dir>` runs one package's.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const only = process.argv[2];

if (process.argv.includes('--help')) {
  console.log('usage: node bench/run.ts [package-dir]\nRuns bench/*.bench.ts of every package (or of one).');
  process.exit(0);
}

function packageDirs(): string[] {
  if (only !== undefined) return [resolve(only)];
  const dirs: string[] = [];
  for (const group of ['packages', 'apps']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) dirs.push(join(base, name));
  }
  return dirs;
}

const files = packageDirs().flatMap((dir) => {
  const benchDir = join(dir, 'bench');
  if (!existsSync(benchDir)) return [];
  return readdirSync(benchDir)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .map((f) => join(benchDir, f));
});

let failed = 0;
files.forEach((file, i) => {
  console.log(`\n[${i + 1}/${files.length}] ${relative(root, file)}`);
  const run = spawnSync(process.execPath, ['--conditions=@toolwire/source', '--expose-gc', file], {
    stdio: 'inherit',
    cwd: join(file, '..', '..'),
  });
  if (run.status !== 0) failed++;
});
if (files.length === 0) console.log('no benchmarks found');
if (failed > 0) {
  console.error(`${failed} benchmark file(s) failed`);
  process.exit(1);
}
