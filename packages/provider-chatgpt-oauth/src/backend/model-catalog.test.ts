import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FALLBACK_INSTRUCTIONS } from './fallback-instructions.ts';
import { createModelCatalog } from './model-catalog.ts';

describe('createModelCatalog', () => {
  it('gives up a catalog read that never answers after its timeout, uses the bundled instructions, and reads again next time', async () => {
    let reads = 0;
    const server = createServer((req) => {
      reads++;
      req.resume();
      // Never answered.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const catalog = createModelCatalog({
        baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        fetch: globalThis.fetch,
        clientVersion: '0.0.0',
        logger: { warn: () => undefined, info: () => undefined },
        timeoutMs: 100,
      });
      const credentials = { accessToken: 'token', accountId: 'acct-1' };
      const caller = new AbortController();
      // No caller's signal is needed for the read to end (this one never aborts).
      expect((await catalog.instructionsFor('gpt-5.4', credentials, caller.signal)).instructions).toBe(FALLBACK_INSTRUCTIONS);
      expect((await catalog.instructionsFor('gpt-5.4', credentials)).source).toBe('fallback');
      expect(reads).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
