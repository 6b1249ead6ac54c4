import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.ts';
import { InvalidToolDefinitionError } from './errors.ts';
import { ToolRegistry } from './tool-registry.ts';

const tool = (name: string) => defineTool({ name, parameters: { type: 'object' }, execute: () => name });
const names = (registry: ToolRegistry, principal?: string): string[] => registry.list(principal).map((t) => t.name);

describe('ToolRegistry', () => {
  it('applies the tool-name rule to tools not made by defineTool', () => {
    const plain = { ...tool('ok'), name: 'bad name' };
    expect(() => new ToolRegistry().register(plain)).toThrow(InvalidToolDefinitionError);
    expect(() => new ToolRegistry().register({ ...tool('ok'), name: 'weather-now' })).not.toThrow();
  });

  it('registers, gets, lists and unregisters tools in registration order', () => {
    const registry = new ToolRegistry({ tools: [tool('b'), tool('a')] });
    registry.register(tool('c'));
    expect(registry.get('a')?.name).toBe('a');
    expect(registry.get('zzz')).toBeUndefined();
    expect(names(registry)).toEqual(['b', 'a', 'c']);
    expect(registry.unregister('a')).toBe(true);
    expect(registry.unregister('a')).toBe(false);
    expect(names(registry)).toEqual(['b', 'c']);
  });

  it('refuses a second tool with the same name', () => {
    const registry = new ToolRegistry({ tools: [tool('search')] });
    expect(() => registry.register(tool('search'))).toThrow(InvalidToolDefinitionError);
    expect(() => registry.register(tool('search'))).toThrow(/already registered/);
  });

  it('lets everyone call everything when no permissions are given', () => {
    const registry = new ToolRegistry({ tools: [tool('a'), tool('b')] });
    expect(registry.isAllowed('a')).toBe(true);
    expect(registry.isAllowed('b', 'anyone')).toBe(true);
  });

  it('limits each principal to its allowed names, with * globs', () => {
    const registry = new ToolRegistry({
      tools: [tool('files.read'), tool('files.write'), tool('search'), tool('admin_reset')],
      permissions: { alice: ['files.*', 'search'], bob: ['*.read'], root: ['*'] },
    });
    expect(names(registry, 'alice')).toEqual(['files.read', 'files.write', 'search']);
    expect(names(registry, 'bob')).toEqual(['files.read']);
    expect(names(registry, 'root')).toEqual(['files.read', 'files.write', 'search', 'admin_reset']);
  });

  it('gives unlisted and anonymous callers the "*" entry, or nothing without one', () => {
    const open = new ToolRegistry({ tools: [tool('search'), tool('delete')], permissions: { admin: ['*'], '*': ['search'] } });
    expect(names(open, 'stranger')).toEqual(['search']);
    expect(names(open)).toEqual(['search']);
    const closed = new ToolRegistry({ tools: [tool('search')], permissions: { admin: ['*'] } });
    expect(names(closed, 'stranger')).toEqual([]);
    expect(names(closed)).toEqual([]);
  });

  it('changes permissions at runtime, closing an open registry to everyone else', () => {
    const registry = new ToolRegistry({ tools: [tool('a'), tool('b')] });
    registry.setPermissions('carol', ['b']);
    expect(names(registry, 'carol')).toEqual(['b']);
    expect(names(registry, 'dave')).toEqual([]);
    registry.setPermissions('*', ['a']);
    expect(names(registry, 'dave')).toEqual(['a']);
  });

  it('rate-limits each principal and tool with its own token bucket', () => {
    let now = 1_000;
    const registry = new ToolRegistry({ rateLimits: { '*': { capacity: 1, refillPerSecond: 1 } }, now: () => now });
    expect(registry.takeRateLimit('a', 'p')).toEqual({ allowed: true });
    expect(registry.takeRateLimit('a', 'p')).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(registry.takeRateLimit('b', 'p')).toEqual({ allowed: true });
    expect(registry.takeRateLimit('a', 'q')).toEqual({ allowed: true });
    now += 500;
    expect(registry.takeRateLimit('a', 'p')).toEqual({ allowed: false, retryAfterMs: 500 });
    now += 500;
    expect(registry.takeRateLimit('a', 'p')).toEqual({ allowed: true });
  });

  it('prefers an exact rate-limit entry over a glob, and applies none when nothing matches', () => {
    const registry = new ToolRegistry({
      rateLimits: { 'search*': { capacity: 1, refillPerSecond: 0 }, search_web: { capacity: 3, refillPerSecond: 0 } },
      now: () => 0,
    });
    const take = (name: string): boolean => registry.takeRateLimit(name).allowed;
    expect([take('search_web'), take('search_web'), take('search_web'), take('search_web')]).toEqual([true, true, true, false]);
    expect([take('search_docs'), take('search_docs')]).toEqual([true, false]);
    expect([take('other'), take('other'), take('other')]).toEqual([true, true, true]);
  });

  it('rejects rate limits that cannot work', () => {
    expect(() => new ToolRegistry({ rateLimits: { a: { capacity: 0, refillPerSecond: 1 } } })).toThrow(RangeError);
    expect(() => new ToolRegistry({ rateLimits: { a: { capacity: 1, refillPerSecond: -1 } } })).toThrow(RangeError);
  });

  it('rejects a maxConcurrency below 1', () => {
    expect(() => new ToolRegistry({ maxConcurrency: 0 })).toThrow(RangeError);
  });
});

describe('ToolRegistry rate-limit bookkeeping', () => {
  const limited = (now: () => number) =>
    new ToolRegistry({ tools: [tool('search')], rateLimits: { search: { capacity: 2, refillPerSecond: 1 } }, now });

  it('forgets idle buckets once they have refilled, as new principals keep arriving', () => {
    let clock = 0;
    const registry = limited(() => clock);
    for (let i = 0; i < 50_000; i++) {
      clock += 10;
      expect(registry.takeRateLimit('search', `p${i}`).allowed).toBe(true);
    }
    // A bucket refills in 2 s, i.e. 200 calls at 10 ms: only the recent principals are held.
    expect(registry.rateLimitBuckets).toBeLessThan(500);
  });

  it('still limits an active principal among many idle ones', () => {
    let clock = 0;
    const registry = limited(() => clock);
    for (let i = 0; i < 5_000; i++) registry.takeRateLimit('search', `idle${i}`);
    expect(registry.takeRateLimit('search', 'busy').allowed).toBe(true);
    expect(registry.takeRateLimit('search', 'busy').allowed).toBe(true);
    expect(registry.takeRateLimit('search', 'busy')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    clock += 1000;
    expect(registry.takeRateLimit('search', 'busy').allowed).toBe(true);
  });

  it('does not let buckets that never refill block the expiry of the others', () => {
    let clock = 0;
    const registry = new ToolRegistry({
      tools: [tool('once'), tool('search')],
      rateLimits: { once: { capacity: 1, refillPerSecond: 0 }, search: { capacity: 1, refillPerSecond: 1 } },
      now: () => clock,
    });
    for (let i = 0; i < 10; i++) registry.takeRateLimit('once', `q${i}`);
    for (let i = 0; i < 20_000; i++) {
      clock += 10;
      registry.takeRateLimit('search', `p${i}`);
    }
    expect(registry.rateLimitBuckets).toBeLessThan(200);
    expect(registry.takeRateLimit('once', 'q3').allowed).toBe(false);
  });
});
