import type { ProviderTool } from '@toolwire/core';

/** OpenAI's code interpreter as a caller passes it, for the tests that stream its items. */
export const codeInterpreter: ProviderTool = {
  type: 'provider',
  provider: 'openai',
  id: 'openai.code_interpreter',
  name: 'code_interpreter',
  config: { wireTool: { type: 'code_interpreter', container: { type: 'auto' } } },
};
