import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from '../define-tool.ts';
import { InvalidArgumentsError, InvalidToolDefinitionError } from '../errors.ts';
import { parseArguments } from '../parse-arguments.ts';
import type { JsonSchema } from '../types/json-schema.ts';
import { MAX_PATTERN_INSTRUCTIONS, MAX_PATTERN_LENGTH, MAX_SCHEMA_PATTERN_INSTRUCTIONS } from './linear-regexp.ts';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from './schema-bounds.ts';
import { jsonTextDepth } from './value-depth.ts';

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

describe('patterns are bounded in size, alone and per schema', () => {
  it.each([
    ['a 100 000-character literal', 'a'.repeat(100_000), `longer than ${MAX_PATTERN_LENGTH} characters`],
    ['a short pattern that compiles to 6 000 instructions', '(\\w+\\s?){1000}', `at most ${MAX_PATTERN_INSTRUCTIONS}`],
    ['a unicode class repeated 1000 times', '\\p{L}{1000}', `at most ${MAX_PATTERN_INSTRUCTIONS}`],
    ['nested repetition past RE2’s limit', '((a{100}){100}){100}', 'invalid repeat'],
  ])('refuses %s as an invalid definition', (_name, pattern, message) => {
    const error = thrown(() => defineTool({ name: 'big', parameters: objectOf({ type: 'string', pattern }) }));
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(message);
  });

  it('refuses a schema whose patterns are too large together, each being fine alone', () => {
    const properties: Record<string, JsonSchema> = {};
    for (let i = 0; i < 6; i++) properties[`p${i}`] = { type: 'string', pattern: `^(?:[a-z]|${i}){400}$` };
    const error = thrown(() => defineTool({ name: 'many', parameters: { type: 'object', properties } }));
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`more than ${MAX_SCHEMA_PATTERN_INSTRUCTIONS} RE2 instructions`);
    // The budget is per schema: the next schema starts afresh.
    expect(defineTool({ name: 'one', parameters: objectOf({ type: 'string', pattern: '^(?:[a-z]|0){400}$' }) }).validate({ q: 'a'.repeat(400) }).success).toBe(true);
  });

  it('accepts realistic patterns: a strict e-mail, a UUID, a phone number', () => {
    const email = "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
    const tool = defineTool({
      name: 'contact',
      parameters: {
        type: 'object',
        properties: {
          email: { type: 'string', pattern: email },
          id: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
          phone: { type: 'string', pattern: '^\\+?[0-9 ]{7,15}$' },
        },
      },
    });
    expect(tool.validate({ email: 'a.b@example.com', id: '123e4567-e89b-12d3-a456-426614174000', phone: '+44 20 7946 0958' }).success).toBe(true);
    expect(tool.validate({ email: 'a.b@', id: 'nope', phone: 'x' }).success).toBe(false);
  });

  it('keeps earlier tools working after many schemas were compiled', () => {
    const tools = Array.from({ length: 250 }, (_, i) => defineTool({ name: `t${i}`, parameters: objectOf({ type: 'string', pattern: `^x${i}$` }) }));
    for (const i of [0, 99, 100, 249]) {
      expect(tools[i]!.validate({ q: `x${i}` }).success).toBe(true);
      expect(tools[i]!.validate({ q: `x${i}!` }).success).toBe(false);
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

describe('properties named like Object.prototype members are read from the arguments only', () => {
  const tool = defineTool({
    name: 'proto_names',
    description: 'Properties named like inherited members.',
    // From JSON, as a schema arrives: an object literal's `__proto__` would set the prototype.
    parameters: JSON.parse(
      '{"type":"object","properties":{"constructor":{"type":"number"},"toString":{"type":"string"},"__proto__":{"type":"string"},"hasOwnProperty":{"type":"boolean"}},"required":["__proto__"]}',
    ) as JsonSchema,
    execute: () => 'ok',
  });

  it('does not take an inherited member for an argument the model left out', () => {
    const result = tool.validate(JSON.parse('{"__proto__": "x"}'));
    expect(result.success).toBe(true);
  });

  it('counts a required property as missing when only the prototype has it', () => {
    const result = tool.validate({});
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]).toMatchObject({ path: '__proto__', message: 'is required' });
    }
  });

  it('still checks the arguments the model did give under those names', () => {
    expect(tool.validate(JSON.parse('{"__proto__": "x", "constructor": 3, "toString": "s", "hasOwnProperty": true}')).success).toBe(true);
    expect(tool.validate(JSON.parse('{"__proto__": "x", "constructor": "three"}')).success).toBe(false);
  });
});

describe('jsonTextDepth', () => {
  it('counts objects and arrays outside strings, escapes included', () => {
    expect(jsonTextDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonTextDepth('{"a":"[[[[{{{{\\"[[["}')).toBe(1);
    expect(jsonTextDepth('"just a string"')).toBe(0);
  });

  it('stops past its limit without reading the rest', () => {
    expect(jsonTextDepth('['.repeat(1_000_000), 10)).toBe(11);
  });
});
