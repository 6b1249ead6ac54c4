import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exercise, uncaughtCollector, within } from './fuzz/check-tool-set.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fixed-seed-parameters.ts';
import { scenario } from './fuzz/mcp-arbitraries.ts';
import { startFuzzHttpServer } from './fixtures/fuzz-http-server.ts';
import type { FuzzHttpServer } from './fixtures/fuzz-http-server.ts';
import { eventually } from './helpers.ts';

// A streamable HTTP server (fixtures/fuzz-http-server.ts) that answers with a generated
// scenario: valid answers mutated, noise, garbage, torn frames, resets, odd event streams.
const uncaught = uncaughtCollector();
let uninstall: () => void;
let server: FuzzHttpServer;
beforeAll(async () => {
  uninstall = uncaught.install();
  server = await startFuzzHttpServer();
});
afterAll(async () => {
  uninstall();
  await server.close();
});

const RUNS = 60;

describe('mcpTools against fuzzed streamable HTTP servers', () => {
  it('lists, calls and closes whatever the server sends', { timeout: fuzzTimeout(RUNS, 12_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (generated) => {
        const url = server.serve(generated);
        await within(20_000, 'listing, calling and closing', exercise({ url, allowPrivateNetwork: true }, { connectTimeoutMs: 1000, callTimeoutMs: 800 }));
        await new Promise((resolve) => setImmediate(resolve));
        expect(uncaught.take()).toEqual([]);
        // Nothing of the session is left open.
        expect(await eventually(() => server.openSockets() === 0)).toBe(true);
      }),
      fuzzParameters(RUNS, 26_002),
    );
  });
});
