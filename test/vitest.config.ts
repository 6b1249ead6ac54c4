import { resolve } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../vitest.shared.ts';

// The workspace root's own tests (the README examples), run by scripts/run-tests.ts after
// the packages' tests; the report lands in the root's .test-results.json.
export default mergeConfig(
  sharedConfig,
  defineConfig({ root: resolve(import.meta.dirname, '..'), test: { include: ['test/**/*.test.ts'] } }),
);
