import { AuthenticationError, InvalidRequestError, ProviderServerError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { isToolsUnsupportedError } from './is-tools-unsupported-error.ts';

const invalid = (message: string, status = 400) => new InvalidRequestError({ provider: 'openai', status, message });

describe('isToolsUnsupportedError', () => {
  it('recognises how servers reject tools', () => {
    expect(isToolsUnsupportedError(invalid('registry.ollama.ai/library/gemma:2b does not support tools'))).toBe(true);
    expect(isToolsUnsupportedError(invalid('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'))).toBe(true);
    expect(isToolsUnsupportedError(new ProviderServerError({ provider: 'openai', status: 500, message: 'Cannot use tools with stream' }))).toBe(true);
    expect(isToolsUnsupportedError(invalid('Tools are not supported by this model.'))).toBe(true);
    expect(isToolsUnsupportedError(invalid('Unrecognized request argument supplied: tools'))).toBe(true);
  });

  it('does not switch for other rejections', () => {
    expect(isToolsUnsupportedError(invalid("Invalid 'tools': array too long. Expected an array with maximum length 128"))).toBe(false);
    expect(isToolsUnsupportedError(invalid("Invalid schema for function 'f': 'format' is not a supported keyword"))).toBe(false);
    expect(isToolsUnsupportedError(new AuthenticationError({ provider: 'openai', status: 401, message: 'model does not support tools' }))).toBe(false);
    expect(isToolsUnsupportedError(new Error('does not support tools'))).toBe(false);
  });
});
