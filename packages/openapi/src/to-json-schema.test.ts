import { describe, expect, it } from 'vitest';
import { SchemaConverter } from './to-json-schema.ts';

describe('SchemaConverter', () => {
  it('converts the OpenAPI 3.0 dialect to JSON Schema 2020-12', () => {
    const converter = new SchemaConverter({}, 'openapi-3.0');
    expect(
      converter.convert({
        type: 'object',
        'x-vendor': true,
        discriminator: { propertyName: 'kind' },
        properties: {
          'x-trace-id': { type: 'string' },
          color: { type: 'string', enum: ['red'], nullable: true },
          n: { type: 'number', minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false, example: 5 },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        'x-trace-id': { type: 'string' },
        color: { type: ['string', 'null'], enum: ['red', null] },
        n: { type: 'number', exclusiveMinimum: 1, maximum: 9, examples: [5] },
      },
    });
  });

  it('leaves 3.1 schemas as they are', () => {
    const schema = { type: ['string', 'null'], exclusiveMinimum: 3, examples: ['a'] };
    expect(new SchemaConverter({}, 'openapi-3.1').convert(schema)).toEqual(schema);
  });

  it('moves the targets of cyclic references into $defs, once each', () => {
    // The key `Node/x` is `Node~1x` in a JSON Pointer.
    const document = { components: { schemas: { 'Node/x': { type: 'object', properties: { next: { $ref: '#/components/schemas/Node~1x' } } } } } };
    const converter = new SchemaConverter(document, 'openapi-3.1');
    expect(converter.convert({ $ref: '#/components/schemas/Node~1x' })).toEqual({ $ref: '#/$defs/Node_x' });
    expect(converter.defs).toEqual({ Node_x: { type: 'object', properties: { next: { $ref: '#/$defs/Node_x' } } } });
  });

  it('refuses references outside the document or to nothing', () => {
    const converter = new SchemaConverter({}, 'openapi-3.1');
    expect(() => converter.convert({ $ref: 'https://example.com/schema.json' })).toThrow(/outside the document/);
    expect(() => converter.convert({ $ref: '#/components/schemas/Missing' })).toThrow(/points at nothing/);
  });

  it('keeps properties named __proto__ and constructor as properties, and follows only own keys', () => {
    const document = JSON.parse('{"components":{"schemas":{"A":{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}}}}') as object;
    const converter = new SchemaConverter(document, 'openapi-3.1');
    const converted = converter.convert(JSON.parse('{"type":"object","properties":{"__proto__":{"$ref":"#/components/schemas/A"}}}'));
    const properties = converted.properties as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(properties.__proto__).toEqual({ $ref: '#/$defs/A' });
    expect(Object.keys(converter.defs.A?.properties as object)).toEqual(['__proto__', 'constructor']);
    expect(() => new SchemaConverter(document, 'openapi-3.1').convert({ $ref: '#/components/schemas/constructor' })).toThrow(/points at nothing/);
  });

  it('cuts descriptions and titles at 1024 characters: the schema goes to the model with every request', () => {
    const converted = new SchemaConverter({}, 'openapi-3.1').convert({ type: 'object', title: 't'.repeat(5000), properties: { a: { type: 'string', description: 'd'.repeat(500_000) } } });
    expect(converted.title).toHaveLength(1024);
    expect((converted.properties as { a: { description: string } }).a.description).toBe(`${'d'.repeat(1021)}...`);
  });
});
