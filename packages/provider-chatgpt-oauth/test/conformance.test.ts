// Core's provider conformance suite against the Codex backend's wire format (the shared
// Responses wire in its Codex form) on a local server.
import { createProviderConformanceSuite } from '@toolwire/core/testing';
import { responsesConformanceWire } from '@toolwire/openai-responses/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';

import { createChatGPT } from '../src/index.ts';
import { makeJwt } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';

function tokens() {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const auth = { chatgpt_account_id: 'acct-conformance', chatgpt_plan_type: 'plus' };
  return { accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), idToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), refreshToken: 'rt_conformance' };
}

describe('chatgpt conformance', () => {
  const suite = createProviderConformanceSuite({
    provider: 'chatgpt',
    createModel: ({ url }) =>
      createChatGPT({ auth: { tokens: tokens(), issuer: 'http://127.0.0.1:9' }, baseURL: url, logger: recordingLogger().logger, maxRetries: 0, streamMaxRetries: 0 }).chat('gpt-5.4', {
        reasoningEffort: 'low',
      }),
    wire: responsesConformanceWire({ codex: true }),
    // A 401 makes the provider refresh the sign-in first; test/chat-model.test.ts covers it with a sign-in server.
    errorStatuses: [400, 403, 404, 429, 500],
  });
  beforeAll(suite.setup);
  afterAll(suite.teardown);
  for (const check of suite.checks) it(check.name, check.run);
});
