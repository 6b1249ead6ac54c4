import { describe, expect, it } from 'vitest';
import { removeStrictNulls, toStrictJsonSchema } from './strict-json-schema.ts';

describe('toStrictJsonSchema', () => {
  it('lists every property as required and closes the object', () => {
    const strict = toStrictJsonSchema({
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
    });
    expect(strict).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
      required: ['city', 'unit'],
      additionalProperties: false,
    });
  });

  it('makes optional properties without a type nullable through anyOf', () => {
    const strict = toStrictJsonSchema({ type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'number' }] } } });
    expect(strict.properties?.['v']).toEqual({ anyOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { type: 'null' }] });
  });

  it('keeps a type list that already allows null', () => {
    const strict = toStrictJsonSchema({ type: 'object', properties: { v: { type: ['integer', 'null'] } } });
    expect(strict.properties?.['v']).toEqual({ type: ['integer', 'null'] });
  });

  it('rewrites nested objects, array items, unions and $defs', () => {
    const strict = toStrictJsonSchema({
      type: 'object',
      properties: {
        filters: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' } }, required: ['field'] } },
        owner: { $ref: '#/$defs/person' },
      },
      required: ['filters', 'owner'],
      $defs: { person: { type: 'object', properties: { name: { type: 'string' } } } },
    });
    expect(strict.properties?.['filters']?.items).toEqual({
      type: 'object',
      properties: { field: { type: 'string' } },
      required: ['field'],
      additionalProperties: false,
    });
    expect(strict['$defs']).toEqual({
      person: { type: 'object', properties: { name: { type: ['string', 'null'] } }, required: ['name'], additionalProperties: false },
    });
  });

  it('does not modify its input', () => {
    const input = { type: 'object' as const, properties: { a: { type: 'string' as const } } };
    toStrictJsonSchema(input);
    expect(input).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});

describe('removeStrictNulls', () => {
  const original = {
    type: 'object' as const,
    properties: {
      city: { type: 'string' as const },
      unit: { type: 'string' as const },
      note: { type: ['string', 'null'] as ('string' | 'null')[] },
      stops: { type: 'array' as const, items: { type: 'object' as const, properties: { name: { type: 'string' as const }, at: { type: 'string' as const } }, required: ['name'] } },
    },
    required: ['city'],
  };

  it('drops nulls the strict rewrite forced on optional properties', () => {
    expect(removeStrictNulls({ city: 'Paris', unit: null, note: null, stops: [{ name: 'A', at: null }] }, original)).toEqual({
      city: 'Paris',
      note: null,
      stops: [{ name: 'A' }],
    });
  });

  it('keeps nulls of required properties for the validator to judge', () => {
    expect(removeStrictNulls({ city: null }, original)).toEqual({ city: null });
  });
});
