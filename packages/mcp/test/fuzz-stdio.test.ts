import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWith } from '../../../test/processes.ts';
import { exercise, uncaughtCollector, within } from './fuzz/check-tool-set.ts';
import { scenario } from './fuzz/mcp-arbitraries.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fixed-seed-parameters.ts';
import { stdioTestServer } from './helpers.ts';

// A stdio server (fixtures/fuzz-stdio-server.ts, sandboxed like any) that answers with a
// generated scenario: valid answers mutated, noise, garbage bytes, torn frames, exits.
const uncaught = uncaughtCollector();
let uninstall: () => void;
beforeAll(() => {
  uninstall = uncaught.install();
});
afterAll(() => uninstall());

const RUNS = 8;

describe('mcpTools against fuzzed stdio servers', () => {
  it('lists, calls and closes whatever the server sends', { timeout: fuzzTimeout(RUNS, 15_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (generated) => {
        const marker = `--fuzz-marker=${randomUUID()}`;
        const encoded = Buffer.from(JSON.stringify(generated)).toString('base64');
        const server = stdioTestServer({ args: [join(import.meta.dirname, 'fixtures', 'fuzz-stdio-server.ts'), encoded, marker] });
        await within(20_000, 'listing, calling and closing', exercise(server, { connectTimeoutMs: 2500, callTimeoutMs: 1200 }));
        // Unhandled rejections are reported a turn later.
        await new Promise((resolve) => setImmediate(resolve));
        expect(uncaught.take()).toEqual([]);
        expect(processesWith(marker)).toBe(0);
      }),
      fuzzParameters(RUNS, 26_001),
    );
  });
});
