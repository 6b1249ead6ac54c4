import { UnsupportedFeatureError } from '@toolwire/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiDocumentError, openApiTools } from '../src/index.ts';
import { fuzzedDocument } from './fuzz/document-arbitraries.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fixed-seed-parameters.ts';

// Third-party documents at their worst: the fixtures with generated changes. Whatever the
// document, openApiTools ends with tools whose schemas compile or a documented error.
const uncaught: unknown[] = [];
const collect = (error: unknown) => uncaught.push(error);
beforeAll(() => {
  process.on('uncaughtException', collect);
  process.on('unhandledRejection', collect);
});
afterAll(() => {
  process.off('uncaughtException', collect);
  process.off('unhandledRejection', collect);
});

async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`openApiTools did not end within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const RUNS = 150;

describe('openApiTools on fuzzed documents', () => {
  it('makes tools whose schemas compile, or refuses with a documented error', { timeout: fuzzTimeout(RUNS, 500) }, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzedDocument({ blind: true, maxChanges: 4 }), fc.boolean(), async (document, withBaseURL) => {
        const warnings: string[] = [];
        const outcome = await within(
          10_000,
          openApiTools(document, { ...(withBaseURL ? { baseURL: 'http://127.0.0.1:9/v1' } : {}), allowPrivateNetwork: true, onWarning: (message) => warnings.push(message) }).then(
            (tools) => ({ tools }),
            (error: unknown) => ({ error }),
          ),
        );
        await new Promise((resolve) => setImmediate(resolve));
        expect(uncaught.splice(0)).toEqual([]);
        if ('error' in outcome) {
          const { error } = outcome;
          const documented = OpenApiDocumentError.isInstance(error) || UnsupportedFeatureError.isInstance(error) || (error instanceof TypeError && error.message.startsWith('openApiTools:'));
          expect(documented, `rejected with ${String(error)}`).toBe(true);
          expect((error as Error).message.length).toBeLessThan(20_000);
          return;
        }
        const names = new Set<string>();
        for (const tool of outcome.tools) {
          expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
          expect(names.has(tool.name), `two tools named ${tool.name}`).toBe(false);
          names.add(tool.name);
          expect(tool.inputSchema).toMatchObject({ type: 'object' });
          expect(() => JSON.stringify(tool.inputSchema)).not.toThrow();
          // Compiled: checking arguments answers, it does not throw.
          expect(() => tool.validate({})).not.toThrow();
          expect(() => tool.validate({ body: { a: 1 }, petId: 'x', limit: 'nope' })).not.toThrow();
        }
        for (const warning of warnings) expect(typeof warning).toBe('string');
      }),
      fuzzParameters(RUNS, 26_101),
    );
  });
});
