import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from '../define-tool.ts';
import type { JsonSchema } from '../types/json-schema.ts';

function messageFor(parameters: JsonSchema | z.ZodType, args: unknown): string {
  const tool = parameters instanceof z.ZodType ? defineTool({ name: 't', parameters }) : defineTool({ name: 't', parameters });
  const result = tool.validate(args);
  return result.success ? 'valid' : result.message;
}

const json = (property: JsonSchema): JsonSchema => ({ type: 'object', properties: { v: property } });

describe('JSON Schema validation messages', () => {
  it.each<[string, JsonSchema, unknown, string]>([
    ['minimum', { type: 'number', minimum: 1 }, 0, 'v: must be >= 1, got 0'],
    ['exclusiveMaximum', { type: 'number', exclusiveMaximum: 10 }, 10, 'v: must be < 10, got 10'],
    ['multipleOf', { type: 'number', multipleOf: 5 }, 7, 'v: must be multiple of 5, got 7'],
    ['maxLength', { type: 'string', maxLength: 1 }, 'ab', 'v: must be at most 1 character long, got "ab"'],
    ['minItems', { type: 'array', minItems: 2 }, [1], 'v: must have at least 2 items'],
    ['maxItems', { type: 'array', maxItems: 1 }, [1, 2], 'v: must have at most 1 item'],
    ['pattern', { type: 'string', pattern: '^[a-z]+$' }, 'A1', 'v: must match the pattern ^[a-z]+$, got "A1"'],
    ['const', { const: 'yes' }, 'no', 'v: must be "yes", got "no"'],
    ['type list', { type: ['string', 'null'] }, 3, 'v: must be string or null, got 3'],
    ['type of an object value', { type: 'string' }, { a: 1 }, 'v: must be string, got an object'],
    ['type of an array value', { type: 'string' }, [1], 'v: must be string, got an array'],
    ['oneOf', { oneOf: [{ type: 'string' }, { type: 'integer' }] }, 1.5, 'v: does not match any of the allowed shapes, got 1.5'],
    ['a long string value', { type: 'integer' }, 'x'.repeat(60), `v: must be integer, got "${'x'.repeat(40)}…"`],
  ])('%s', (_name, property, value, expected) => {
    expect(messageFor(json(property), { v: value })).toBe(expected);
  });

  it('falls back to the Ajv message for other keywords', () => {
    expect(messageFor(json({ type: 'array', uniqueItems: true }), { v: [1, 1] })).toBe(
      'v: must NOT have duplicate items (items ## 0 and 1 are identical)',
    );
  });

  it('names the property in paths with escaped pointer characters', () => {
    expect(messageFor({ type: 'object', properties: { 'a/b': { type: 'string' } } }, { 'a/b': 1 })).toBe('a/b: must be string, got 1');
  });
});

describe('zod validation messages', () => {
  it.each<[string, z.ZodType, unknown, string]>([
    ['too_small number', z.object({ v: z.number().min(1) }), { v: 0 }, 'v: must be >= 1, got 0'],
    ['exclusive too_big', z.object({ v: z.number().lt(10) }), { v: 10 }, 'v: must be < 10, got 10'],
    ['array min', z.object({ v: z.array(z.string()).min(2) }), { v: ['a'] }, 'v: must have at least 2 items, got an array'],
    ['string max', z.object({ v: z.string().max(2) }), { v: 'abc' }, 'v: must be at most 2 characters long, got "abc"'],
    ['regex', z.object({ v: z.string().regex(/^[a-z]+$/) }), { v: 'A' }, 'v: must match the pattern /^[a-z]+$/, got "A"'],
    ['email', z.object({ v: z.email() }), { v: 'nope' }, 'v: must be a valid email, got "nope"'],
    ['multipleOf', z.object({ v: z.number().multipleOf(5) }), { v: 7 }, 'v: must be a multiple of 5, got 7'],
    ['literal', z.object({ v: z.literal('yes') }), { v: 'no' }, 'v: must be "yes", got "no"'],
    ['integer', z.object({ v: z.int() }), { v: 1.5 }, 'v: must be integer, got 1.5'],
    ['union', z.object({ v: z.union([z.string(), z.number()]) }), { v: true }, 'v: does not match any of the allowed shapes, got true'],
    ['nested array path', z.object({ v: z.array(z.object({ id: z.number() })) }), { v: [{ id: 1 }, { id: 'x' }] }, 'v[1].id: must be number, got "x"'],
    ['record key', z.object({ v: z.record(z.string().min(2), z.number()) }), { v: { b: 1 } }, 'v.b: is not an allowed key: must be at least 2 characters long, got "b"'],
    ['map value', z.object({ v: z.record(z.string(), z.number()) }), { v: { a: 'x' } }, 'v.a: must be number, got "x"'],
  ])('%s', (_name, schema, value, expected) => {
    expect(messageFor(schema, value)).toBe(expected);
  });
});
