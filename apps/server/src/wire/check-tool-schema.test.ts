import { describe, expect, it } from 'vitest';
import { checkToolSchema } from './check-tool-schema.ts';

const check = (schema: Record<string, unknown>) => checkToolSchema(schema, 'get_weather', 'tools[0].function.parameters');

describe('checkToolSchema', () => {
  it('accepts the schemas clients send: nested objects, arrays, unions, $defs, boolean schemas', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City' },
        days: { type: ['integer', 'null'] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        pair: { type: 'array', items: [{ type: 'string' }, true] },
        unit: { anyOf: [{ const: 'c' }, { const: 'f' }] },
        extra: true,
        where: { $ref: '#/$defs/place' },
      },
      required: ['city'],
      additionalProperties: false,
      $defs: { place: { type: 'object', properties: { lat: { type: 'number' } } } },
    };
    expect(check(schema)).toBeUndefined();
  });

  it.each([
    [{ properties: { city: null } }, "'tools[0].function.parameters.properties.city' is not a schema"],
    [{ properties: 'city' }, "'tools[0].function.parameters.properties' is not an object of schemas"],
    [{ properties: { tags: { type: 'array', items: null } } }, "'tools[0].function.parameters.properties.tags.items' is not a schema"],
    [{ properties: { unit: { anyOf: 'c' } } }, "'tools[0].function.parameters.properties.unit.anyOf' is not a non-empty list of schemas"],
    [{ properties: { unit: { oneOf: [{ const: 'c' }, 7] } } }, "'tools[0].function.parameters.properties.unit.oneOf[1]' is not a schema"],
    [{ required: [1] }, "'tools[0].function.parameters.required' is not a list of property names"],
    [{ properties: { city: { type: 5 } } }, "'tools[0].function.parameters.properties.city.type' is not a type name"],
    [{ properties: { city: { enum: 'a' } } }, "'tools[0].function.parameters.properties.city.enum' is not a list"],
  ])('refuses %j with a 400 naming the keyword', (schema, message) => {
    const error = check({ type: 'object', ...schema });
    expect(error?.status).toBe(400);
    expect(error?.code).toBe('invalid_function_parameters');
    expect(error?.param).toBe('tools[0].function.parameters');
    expect(error?.message).toContain("Invalid schema for function 'get_weather'");
    expect(error?.message).toContain(message);
  });
});
