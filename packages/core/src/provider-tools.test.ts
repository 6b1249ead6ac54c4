import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.ts';
import { ProviderToolMismatchError } from './errors.ts';
import { isProviderTool, partitionTools } from './provider-tools.ts';
import type { ProviderTool } from './types/provider-tool.ts';

const interpreter: ProviderTool = { type: 'provider', provider: 'openai', id: 'openai.code_interpreter', name: 'code_interpreter', config: {} };
const search = defineTool({ name: 'search', parameters: { type: 'object' } });

describe('partitionTools', () => {
  it('splits function tools from provider tools of the same provider, keeping order', () => {
    const plain = { type: 'function' as const, name: 'plain', inputSchema: { type: 'object' as const } };
    expect(partitionTools([search, interpreter, plain], 'openai')).toEqual({ functionTools: [search, plain], providerTools: [interpreter] });
  });

  it('returns empty lists for no tools', () => {
    expect(partitionTools(undefined, 'openai')).toEqual({ functionTools: [], providerTools: [] });
  });

  it('throws ProviderToolMismatchError for a provider tool bound to another provider', () => {
    let error: unknown;
    try {
      partitionTools([search, interpreter], 'ollama');
    } catch (caught) {
      error = caught;
    }
    expect(ProviderToolMismatchError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ toolName: 'code_interpreter', toolProvider: 'openai', provider: 'ollama' });
    expect((error as Error).message).toMatch(/Remove it from this request or use a openai model\.$/);
  });

  it('tells provider tools from function tools', () => {
    expect(isProviderTool(interpreter)).toBe(true);
    expect(isProviderTool(search)).toBe(false);
  });
});
