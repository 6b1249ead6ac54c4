// Core's provider conformance suite against both OpenAI wire formats on a local server.
import { createProviderConformanceSuite } from '@toolwire/core/testing';
import { responsesConformanceWire } from '@toolwire/openai-responses/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { chatConformanceWire } from './chat-conformance-wire.ts';

const provider = (url: string) => createOpenAI({ apiKey: 'sk-conformance', baseURL: `${url}/v1`, maxRetries: 0 });

describe('openai.chat conformance', () => {
  const suite = createProviderConformanceSuite({
    provider: 'openai',
    createModel: ({ url }) => provider(url).chat('gpt-4.1-mini'),
    createTextToolsModel: ({ url }) => provider(url).chat('gpt-4.1-mini', { textTools: true }),
    wire: chatConformanceWire,
  });
  beforeAll(suite.setup);
  afterAll(suite.teardown);
  for (const check of suite.checks) it(check.name, check.run);
});

describe('openai.responses conformance', () => {
  const suite = createProviderConformanceSuite({
    provider: 'openai',
    createModel: ({ url }) => provider(url).responses('gpt-5-nano'),
    wire: responsesConformanceWire(),
  });
  beforeAll(suite.setup);
  afterAll(suite.teardown);
  for (const check of suite.checks) it(check.name, check.run);
});
