import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.ts';
import { InvalidToolDefinitionError } from './errors.ts';
import type { JsonSchema } from './types/json-schema.ts';

const searchJson: JsonSchema = {
  type: 'object',
  properties: {
    q: { type: 'string', minLength: 2 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    sort: { enum: ['relevance', 'date'] },
  },
  required: ['q'],
  additionalProperties: false,
};

function messageOf(result: { success: boolean; message?: string }): string | undefined {
  return result.success ? undefined : result.message;
}

describe('defineTool with a JSON Schema', () => {
  const search = defineTool({ name: 'search', description: 'Search the docs', parameters: searchJson });

  it('exposes the schema as inputSchema, unchanged, with type "function"', () => {
    expect(search).toMatchObject({ type: 'function', name: 'search', description: 'Search the docs', inputSchema: searchJson });
    expect(search.execute).toBeUndefined();
  });

  it('accepts valid arguments and fills in defaults without touching the input', () => {
    const input = { q: 'zod' };
    expect(search.validate(input)).toEqual({ success: true, value: { q: 'zod', limit: 10 } });
    expect(input).toEqual({ q: 'zod' });
  });

  it('says which bound a number broke and what it got', () => {
    expect(messageOf(search.validate({ q: 'zod', limit: 500 }))).toBe('limit: must be <= 100, got 500');
  });

  it('names a missing required property', () => {
    const result = search.validate({ limit: 5 });
    expect(messageOf(result)).toBe('q: is required');
    expect(result.success ? [] : result.issues).toEqual([{ path: 'q', message: 'is required' }]);
  });

  it('names an unexpected property and lists the allowed ones', () => {
    expect(messageOf(search.validate({ q: 'zod', query: 'x' }))).toBe('query: is not an allowed property (allowed: q, limit, sort)');
  });

  it('says which type was expected and shows the value given', () => {
    expect(messageOf(search.validate({ q: 'zod', limit: 'ten' }))).toBe('limit: must be integer, got "ten"');
  });

  it('lists the allowed values of an enum', () => {
    expect(messageOf(search.validate({ q: 'zod', sort: 'name' }))).toBe('sort: must be one of "relevance", "date", got "name"');
  });

  it('reports a string that is too short', () => {
    expect(messageOf(search.validate({ q: 'z' }))).toBe('q: must be at least 2 characters long, got "z"');
  });

  it('reports every problem at once, joined by "; "', () => {
    expect(messageOf(search.validate({ limit: 0, extra: true }))).toBe(
      'q: is required; extra: is not an allowed property (allowed: q, limit, sort); limit: must be >= 1, got 0',
    );
  });

  it('uses array indexes and dots in nested paths', () => {
    const tool = defineTool({
      name: 'batch',
      parameters: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } },
      },
    });
    expect(messageOf(tool.validate({ items: [{ id: 1 }, { id: 'two' }] }))).toBe('items[1].id: must be integer, got "two"');
  });

  it('calls a non-object argument value "arguments"', () => {
    expect(messageOf(search.validate('q=zod'))).toBe('arguments: must be object, got "q=zod"');
  });

  it('summarises a failed anyOf instead of listing every branch', () => {
    const tool = defineTool({
      name: 'pick',
      parameters: { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
    });
    expect(messageOf(tool.validate({ v: true }))).toBe('v: does not match any of the allowed shapes, got true');
  });

  it('accepts two tools whose schemas share an $id', () => {
    const schema = (): JsonSchema => ({ $id: 'https://example.com/args', type: 'object', properties: {} });
    expect(() => {
      defineTool({ name: 'a', parameters: schema() });
      defineTool({ name: 'b', parameters: schema() });
    }).not.toThrow();
  });

  it('validates schemas that declare draft-07, keeping the declaration on the wire', () => {
    const parameters: JsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { tags: { type: 'array', items: { $ref: '#/definitions/tag' } } },
      definitions: { tag: { type: 'string', maxLength: 3 } },
    };
    const tool = defineTool({ name: 'tagger', parameters });
    expect(tool.inputSchema).toBe(parameters);
    expect(messageOf(tool.validate({ tags: ['ok', 'toolong'] }))).toBe('tags[1]: must be at most 3 characters long, got "toolong"');
  });

  it('checks JSON Schema formats and says which one a value broke', () => {
    const invite = defineTool({
      name: 'invite',
      parameters: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email' }, at: { type: 'string', format: 'date-time' }, id: { type: 'string', format: 'uuid' } },
      },
    });
    expect(invite.validate({ email: 'ada@example.com', at: '2026-11-22T16:00:00Z', id: '0b6a3c0e-6f2c-4f0e-9a55-2f1d4a1f3b7e' }).success).toBe(true);
    expect(messageOf(invite.validate({ email: 'ada at example' }))).toBe('email: must be a valid email, got "ada at example"');
    expect(messageOf(invite.validate({ at: 'tomorrow' }))).toBe('at: must be a valid date-time, got "tomorrow"');
    expect(messageOf(invite.validate({ id: '42' }))).toBe('id: must be a valid uuid, got "42"');
  });

  it('accepts any value for a format it does not know', () => {
    const tool = defineTool({ name: 'paint', parameters: { type: 'object', properties: { color: { type: 'string', format: 'x-hex-color' } } } });
    expect(tool.validate({ color: 'anything' }).success).toBe(true);
  });

  it('passes strict through to the tool', () => {
    expect(defineTool({ name: 's', parameters: { type: 'object' }, strict: true }).strict).toBe(true);
  });
});

describe('defineTool with a zod schema', () => {
  const schema = z.object({
    city: z.string().min(1),
    units: z.enum(['metric', 'imperial']).default('metric'),
    days: z.number().int().max(14).optional(),
  });
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather',
    parameters: schema,
    execute: ({ city, units }) => `${city}: 21° (${units})`,
  });

  it('exposes a JSON Schema of the input side without $schema', () => {
    expect(weather.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 }, units: { enum: ['metric', 'imperial'] } },
      required: ['city'],
    });
    expect(weather.inputSchema).not.toHaveProperty('$schema');
  });

  it('returns the parsed value with defaults applied', () => {
    expect(weather.validate({ city: 'Paris' })).toEqual({ success: true, value: { city: 'Paris', units: 'metric' } });
  });

  it('writes zod issues as model-readable messages', () => {
    expect(messageOf(weather.validate({ city: 'Paris', days: 30 }))).toBe('days: must be <= 14, got 30');
    expect(messageOf(weather.validate({}))).toBe('city: is required');
    expect(messageOf(weather.validate({ city: 'Paris', units: 'kelvin' }))).toBe(
      'units: must be one of "metric", "imperial", got "kelvin"',
    );
    expect(messageOf(weather.validate({ city: 5 }))).toBe('city: must be string, got 5');
    expect(messageOf(weather.validate({ city: '' }))).toBe('city: must be at least 1 character long, got ""');
  });

  it('reports unknown keys of a strict object one by one', () => {
    const tool = defineTool({ name: 't', parameters: z.strictObject({ a: z.string() }) });
    expect(messageOf(tool.validate({ a: 'x', b: 1, c: 2 }))).toBe('b: is not an allowed property; c: is not an allowed property');
  });

  it('keeps custom refinement messages', () => {
    const tool = defineTool({
      name: 't',
      parameters: z.object({ from: z.number(), to: z.number() }).refine((v) => v.from <= v.to, { message: 'from must not exceed to', path: ['from'] }),
    });
    expect(messageOf(tool.validate({ from: 3, to: 1 }))).toBe('from: from must not exceed to');
  });

  it('infers execute argument types from the schema', async () => {
    type Args = Parameters<NonNullable<typeof weather.execute>>[0];
    expectTypeOf<Args>().toEqualTypeOf<{ city: string; units: 'metric' | 'imperial'; days?: number | undefined }>();
    const controller = new AbortController();
    expect(await weather.execute?.({ city: 'Oslo', units: 'imperial' }, { toolCallId: 'c1', signal: controller.signal })).toBe(
      'Oslo: 21° (imperial)',
    );
  });
});

describe('defineTool rejects bad definitions', () => {
  it.each(['', 'has space', 'ünïcode', 'a'.repeat(65), 'semi;colon'])('rejects the name %j', (name) => {
    expect(() => defineTool({ name, parameters: { type: 'object' } })).toThrow(InvalidToolDefinitionError);
  });

  it('accepts names with letters, digits, "_", "." and "-" up to 64 characters', () => {
    expect(defineTool({ name: 'files.read_v2-beta', parameters: { type: 'object' } }).name).toBe('files.read_v2-beta');
    expect(() => defineTool({ name: 'a'.repeat(64), parameters: { type: 'object' } })).not.toThrow();
  });

  it('rejects a JSON Schema that does not describe an object, naming the tool', () => {
    const attempt = (): unknown => defineTool({ name: 'echo', parameters: { type: 'string' } });
    expect(attempt).toThrow(InvalidToolDefinitionError);
    expect(attempt).toThrow('Tool "echo" is invalid: parameters must describe an object (type "object"), got "string"');
  });

  it('rejects a zod schema that is not an object', () => {
    expect(() => defineTool({ name: 'echo', parameters: z.string() })).toThrow(/must describe an object/);
  });

  it('rejects a zod schema that JSON Schema cannot express', () => {
    expect(() => defineTool({ name: 'when', parameters: z.object({ at: z.date() }) })).toThrow(/cannot be expressed as JSON Schema/);
  });

  it('rejects a JSON Schema that does not compile', () => {
    let error: unknown;
    try {
      defineTool({ name: 'broken', parameters: { type: 'object', properties: { a: { type: 'text' as 'string' } } } });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect((error as InvalidToolDefinitionError).toolName).toBe('broken');
    expect((error as Error).message).toMatch(/^Tool "broken" is invalid: its JSON Schema does not compile: /);
  });

  it('rejects a JSON Schema with an unresolvable $ref', () => {
    expect(() => defineTool({ name: 'r', parameters: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } })).toThrow(
      /does not compile/,
    );
  });

  it('rejects parameters that are not an object at all', () => {
    expect(() => defineTool({ name: 'n', parameters: null as unknown as JsonSchema })).toThrow(InvalidToolDefinitionError);
  });
});
