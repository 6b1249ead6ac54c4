// Core's provider conformance suite against Ollama's wire format on a local server.
import { createProviderConformanceSuite } from '@toolwire/core/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { ollamaConformanceWire } from './ollama-conformance-wire.ts';

describe('ollama conformance', () => {
  const suite = createProviderConformanceSuite({
    provider: 'ollama',
    createModel: ({ url }) => createOllama({ host: url }).chat('qwen3:0.6b', { textTools: false }),
    createTextToolsModel: ({ url }) => createOllama({ host: url }).chat('qwen3:0.6b', { textTools: true }),
    wire: ollamaConformanceWire,
  });
  beforeAll(suite.setup);
  afterAll(suite.teardown);
  for (const check of suite.checks) it(check.name, check.run);
});
