import { defineTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createServerToolRegistry } from './server-tool-registry.ts';

const tool = (name: string) => defineTool({ name, parameters: { type: 'object' }, execute: () => name });

describe('createServerToolRegistry', () => {
  it("gives each key the tools its 'tools' patterns name, and keys without a list every tool", () => {
    const registry = createServerToolRegistry({
      tools: [tool('calculate'), tool('fetch_url'), tool('weather_now')],
      keys: [
        { id: 'team-a', keyHash: 'sha256:a', tools: ['calculate', 'weather*'] },
        { id: 'admin', keyHash: 'sha256:b' },
      ],
      maxConcurrent: 2,
    });
    expect(registry.list('team-a').map((t) => t.name)).toEqual(['calculate', 'weather_now']);
    expect(registry.list('admin').map((t) => t.name)).toEqual(['calculate', 'fetch_url', 'weather_now']);
    expect(registry.isAllowed('calculate', 'stranger')).toBe(false);
  });

  it('lets everyone call everything when no key limits tools', () => {
    const registry = createServerToolRegistry({ tools: [tool('calculate')], keys: [], maxConcurrent: 1 });
    expect(registry.isAllowed('calculate', 'anonymous')).toBe(true);
  });
});
