import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Shared vitest settings: tests import workspace packages through the
 * `@toolwire/source` export condition, so they run against `src/` without a build. Workers
 * start with `--expose-gc`, so a test can collect garbage through `globalThis.gc`. Every
 * fast-check property runs from one fixed seed unless asked otherwise (test/fast-check-seed.ts).
 */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['@toolwire/source', 'import', 'module', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@toolwire/source', 'import', 'module', 'node', 'default'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Memory tests collect garbage before they measure what a parser or a fetch keeps.
    execArgv: ['--expose-gc'],
    setupFiles: [fileURLToPath(new URL('./test/fast-check-seed.ts', import.meta.url))],
    reporters: ['default', ['json', { outputFile: '.test-results.json' }]],
  },
});
