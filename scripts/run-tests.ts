// Runs every package's tests through turbo (continuing past failures so one run shows
// them all), then the workspace root's own tests (test/*.test.ts: the README examples, which
// span every package), then prints one closing line for the whole workspace:
// `tests: N passed, N failed, N skipped`. With turbo arguments (`--filter=…`) only turbo runs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  testResults?: { name: string; status: string; assertionResults?: { status: string }[] }[];
}

const packageDirs = ['packages', 'apps'].flatMap((group) =>
  existsSync(group)
    ? readdirSync(group)
        .map((name) => join(group, name))
        .filter((dir) => existsSync(join(dir, 'package.json')))
    : [],
);
// A report left from an earlier run must not stand in for this one (turbo restores
// cached reports itself).
for (const dir of packageDirs) rmSync(join(dir, '.test-results.json'), { force: true });

const turboArgs = process.argv.slice(2);
const turbo = spawnSync('turbo', ['run', 'test', '--continue', '--concurrency=2', ...turboArgs], {
  stdio: 'inherit',
});

// Not a turbo task: its inputs are every README and package, so it runs every time.
const rootRun = turboArgs.length === 0;
let rootStatus: number | null = 0;
if (rootRun) {
  rmSync('.test-results.json', { force: true });
  console.log('\n== workspace root tests (README examples)');
  rootStatus = spawnSync('vitest', ['run', '--config', 'test/vitest.config.ts'], { stdio: 'inherit' }).status;
}

let passed = 0;
let failed = 0;
let skipped = 0;
let brokenSuites = 0;
const missing: string[] = [];
for (const dir of rootRun ? [...packageDirs, '.'] : packageDirs) {
  const report = join(dir, '.test-results.json');
  if (!existsSync(report)) {
    missing.push(dir);
    continue;
  }
  const data = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  passed += data.numPassedTests;
  failed += data.numFailedTests;
  skipped += data.numPendingTests + (data.numTodoTests ?? 0);
  // A file that failed without a failed test did not run at all (an import or syntax error).
  brokenSuites += (data.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
}
if (missing.length > 0) console.log(`no test report from: ${missing.join(', ')}`);
if (brokenSuites > 0) console.log(`${brokenSuites} test file(s) failed to run`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
const ok = turbo.status === 0 && rootStatus === 0 && failed === 0 && brokenSuites === 0 && missing.length === 0 && passed > 0;
process.exit(ok ? 0 : 1);
