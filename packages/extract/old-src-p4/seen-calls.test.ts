import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIRECT_COMPARE_LIMIT, repeatsEarlier, SeenCalls } from './seen-calls.ts';

/** The reference: JSON with every object's keys sorted. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).reverse().map((key) => [key, reversed(record[key])]));
  }
  return value;
}

const key = fc.constantFrom('a', 'b', 'c', '0', '__proto__x');
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('x', 'y', '1'),
    fc.constantFrom(0, -0, 1, 1.5),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 2 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const args = fc.dictionary(key, value, { maxKeys: 3 });

describe('SeenCalls', () => {
  it('reports a call as new exactly when no earlier call has its name and arguments (any key order), in list and bucket mode', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('f', 'g'), args, fc.boolean()), { maxLength: 20 }), (calls) => {
        const seen = new SeenCalls();
        const reference = new Set<string>();
        for (const [name, found, reverse] of calls) {
          const id = `${name} ${sortedJson(found)}`;
          expect(seen.add(name, (reverse ? reversed(found) : found) as Record<string, unknown>)).toBe(!reference.has(id));
          reference.add(id);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('tells arrays from objects with the same members', () => {
    const seen = new SeenCalls();
    expect(seen.add('f', { a: { 0: 1 } })).toBe(true);
    expect(seen.add('f', { a: [1] })).toBe(true);
    expect(seen.add('f', { a: [1] })).toBe(false);
    expect(seen.add('f', { a: { 0: 1 }, b: 1 })).toBe(true);
  });
});

describe('repeatsEarlier', () => {
  it('decides as SeenCalls does for a call compared with up to DIRECT_COMPARE_LIMIT distinct earlier calls', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('f', 'g'), args, fc.boolean()), { maxLength: DIRECT_COMPARE_LIMIT + 1 }), (calls) => {
        const seen = new SeenCalls();
        const kept: { name: string; arguments: Record<string, unknown> }[] = [];
        for (const [name, found, reverse] of calls) {
          const spelled = (reverse ? reversed(found) : found) as Record<string, unknown>;
          const repeat = repeatsEarlier(kept, name, spelled);
          expect(repeat).toBe(!seen.add(name, spelled));
          if (!repeat) kept.push({ name, arguments: spelled });
          if (kept.length > DIRECT_COMPARE_LIMIT) break;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
