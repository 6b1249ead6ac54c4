import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from '../define-tool.ts';
import { InvalidArgumentsError, InvalidToolDefinitionError } from '../errors.ts';
import { parseArguments } from '../parse-arguments.ts';
import type { JsonSchema } from '../types/json-schema.ts';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from './schema-bounds.ts';

/** `{ kind: [{ kind: [ … { type: 'string' } ] }] }`, `depth` levels of one combinator. */
function nested(kind: 'anyOf' | 'oneOf' | 'allOf', depth: number): JsonSchema {
  let schema: JsonSchema = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { [kind]: [schema] };
  return schema;
}
const objectOf = (q: JsonSchema): JsonSchema => ({ type: 'object', properties: { q } });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('patterns written by clients and models run in linear time', () => {
  // Each would backtrack for minutes on a 40-character near-miss with a RegExp; a
  // regression shows as this test hanging past its timeout.
  const cases: [pattern: string, matching: string, nearMiss: string][] = [
    ['^(a+)+$', 'a'.repeat(40), `${'a'.repeat(40)}!`],
    ['^(a|a)*$', 'a'.repeat(40), `${'a'.repeat(40)}b`],
    ['^(\\w+\\s?)*$', 'word '.repeat(8), `${'word '.repeat(8)}#`],
    ['^([a-z0-9]+)*@x\\.com$', 'abc@x.com', `${'a1'.repeat(20)}@x.co`],
  ];
  for (const [pattern, matching, nearMiss] of cases) {
    it(`validates ${pattern} against a near miss at once, with the right answer`, () => {
      const tool = defineTool({ name: 'p', parameters: objectOf({ type: 'string', pattern }) });
      expect(tool.validate({ q: matching }).success).toBe(true);
      const result = tool.validate({ q: nearMiss });
      expect(result.success).toBe(false);
      expect(result.success ? '' : result.message).toContain('q:');
    });
  }

  it('applies the same engine to patternProperties', () => {
    const tool = defineTool({
      name: 'pp',
      parameters: { type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } }, additionalProperties: false },
    });
    expect(tool.validate({ xxx: 1 }).success).toBe(true);
    expect(tool.validate({ [`${'x'.repeat(40)}y`]: 1 }).success).toBe(false);
  });

  it('keeps ECMAScript classes, escapes and unicode properties working', () => {
    const tool = defineTool({ name: 'u', parameters: objectOf({ type: 'string', pattern: '^\\d{3}-\\p{L}+/\\u00e9$' }) });
    expect(tool.validate({ q: '123-Zoë/é' }).success).toBe(true);
    expect(tool.validate({ q: '12-Zoë/é' }).success).toBe(false);
  });

  it('refuses patterns that need backtracking (lookaround, backreferences) as an invalid definition', () => {
    for (const pattern of ['^(?=a)a+$', '^(a)\\1$', '(?<!x)y']) {
      const error = thrown(() => defineTool({ name: 'bad', parameters: objectOf({ type: 'string', pattern }) }));
      expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('does not compile');
    }
  });
});

describe('pathological schemas are typed errors, never RangeError', () => {
  it.each([
    ['anyOf', 50_000],
    ['oneOf', 20_000],
    ['allOf', 5_000],
    ['anyOf', MAX_SCHEMA_DEPTH + 1],
  ] as const)('refuses %s nested %i deep in defineTool', (kind, depth) => {
    const error = thrown(() => defineTool({ name: 'deep', parameters: objectOf(nested(kind, depth)) }));
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/nested more than \d+ levels/);
  });

  it('refuses a schema with tens of thousands of branches before compiling it', () => {
    const wide = objectOf({ anyOf: Array.from({ length: 30_000 }, (_, i) => ({ const: i })) });
    const error = thrown(() => defineTool({ name: 'wide', parameters: wide }));
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`more than ${MAX_SCHEMA_NODES} schema objects`);
  });

  it('refuses a schema object that contains itself', () => {
    const cyclic: JsonSchema = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, JsonSchema>).self = cyclic;
    expect(InvalidToolDefinitionError.isInstance(thrown(() => defineTool({ name: 'cyc', parameters: cyclic })))).toBe(true);
  });

  it('still compiles a realistic schema of a few hundred nodes', () => {
    const properties: Record<string, JsonSchema> = {};
    for (let i = 0; i < 200; i++) properties[`p${i}`] = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    const tool = defineTool({ name: 'big', parameters: { type: 'object', properties } });
    expect(tool.validate({ p0: 'x', p199: null }).success).toBe(true);
  });

  it.each([50_000, 2_000, 300])('parseArguments reads a schema nested %i anyOf deep only up to its budget', (depth) => {
    const schema = objectOf(nested('anyOf', depth));
    // The string type sits past the branches parseArguments reads, so `12` is a plain literal.
    expect(parseArguments('q=12', { schema })).toEqual({ q: 12 });
    expect(parseArguments('{"q": "x"}', { schema })).toEqual({ q: 'x' });
  });

  it('parseArguments still coerces through a modestly nested anyOf', () => {
    expect(parseArguments('q=12', { schema: objectOf(nested('anyOf', 100)) })).toEqual({ q: '12' });
  });

  it('parseArguments throws InvalidArgumentsError for arguments nested too deep, in every form', () => {
    for (const text of ['{"a":'.repeat(100_000), '['.repeat(50_000), `f=${'('.repeat(10_000)}`, `x=${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`]) {
      expect(InvalidArgumentsError.isInstance(thrown(() => parseArguments(text)))).toBe(true);
    }
  });
});

describe('deeply nested arguments fail validation instead of overflowing the stack', () => {
  const recursive: JsonSchema = {
    type: 'object',
    properties: { n: { $ref: '#/$defs/node' } },
    $defs: { node: { type: 'object', properties: { c: { $ref: '#/$defs/node' } } } },
  };

  it.each([100_000, 10_000, 201])('a recursive JSON Schema and a value %i levels deep', (depth) => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) value = { c: value };
    const tool = defineTool({ name: 'rec', parameters: recursive });
    const result = tool.validate({ n: value });
    expect(result.success).toBe(false);
    expect(result.success ? '' : result.message).toContain('nested more than 200 levels');
  });

  it('accepts the same schema at a modest depth', () => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) value = { c: value };
    expect(defineTool({ name: 'rec', parameters: recursive }).validate({ n: value }).success).toBe(true);
  });

  it('fails arrays nested 50 000 deep against a zod schema', () => {
    type Tree = Tree[];
    const tree: z.ZodType<Tree> = z.lazy(() => z.array(tree));
    const tool = defineTool({ name: 'z', parameters: z.object({ t: tree }) });
    let value: unknown[] = [];
    for (let i = 0; i < 50_000; i++) value = [value];
    const result = tool.validate({ t: value });
    expect(result.success).toBe(false);
    expect(result.success ? '' : result.message).toContain('nested more than 200 levels');
  });
});
