import type { JsonSchema } from '@toolwire/core';

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withNull(schema: JsonSchema): JsonSchema {
  const { type } = schema;
  if (typeof type === 'string') {
    const nullable: JsonSchema = { ...schema, type: type === 'null' ? 'null' : [type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  if (Array.isArray(type)) {
    if (type.includes('null')) return schema;
    const nullable: JsonSchema = { ...schema, type: [...type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function mapSchemaList(list: JsonSchema[]): JsonSchema[] {
  return list.map((item) => toStrictJsonSchema(item));
}

function mapSchemaRecord(record: unknown): Record<string, JsonSchema> | undefined {
  if (!isSchema(record)) return undefined;
  const out: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(record)) {
    out[key] = isSchema(value) ? toStrictJsonSchema(value) : (value as JsonSchema);
  }
  return out;
}

/**
 * Rewrites a JSON Schema the way OpenAI's strict mode requires: every object lists all of
 * its properties in `required` (properties that were optional become nullable instead) and
 * has `additionalProperties: false`. Applied recursively; the input is not modified.
 *
 * @example toStrictJsonSchema({ type: 'object', properties: { q: { type: 'string' } } })
 * // → { type: 'object', properties: { q: { type: ['string', 'null'] } }, required: ['q'], additionalProperties: false }
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isSchema(schema.properties);
  if (isObject) {
    const properties = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const strictProperties: Record<string, JsonSchema> = {};
    for (const [key, value] of Object.entries(properties)) {
      const strict = toStrictJsonSchema(value);
      strictProperties[key] = required.has(key) ? strict : withNull(strict);
    }
    out.properties = strictProperties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (Array.isArray(schema.items)) out.items = mapSchemaList(schema.items);
  else if (isSchema(schema.items)) out.items = toStrictJsonSchema(schema.items);
  if (Array.isArray(schema.anyOf)) out.anyOf = mapSchemaList(schema.anyOf);
  if (Array.isArray(schema.oneOf)) out.oneOf = mapSchemaList(schema.oneOf);
  if (Array.isArray(schema.allOf)) out.allOf = mapSchemaList(schema.allOf);
  const defs = mapSchemaRecord(schema.$defs);
  if (defs) out.$defs = defs;
  const definitions = mapSchemaRecord(schema.definitions);
  if (definitions) out.definitions = definitions;
  return out;
}

function allowsNull(schema: JsonSchema | undefined): boolean {
  if (!schema) return true;
  const { type } = schema;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const unions = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return unions.some((member) => allowsNull(member));
}

/**
 * Undoes the nullable rewrite of `toStrictJsonSchema` on a strict call's arguments: a
 * property that was optional in the original schema and does not allow `null` there is
 * dropped when the model sent `null` for it (strict mode makes the model send every
 * property). Recurses into nested objects and arrays; returns a new object.
 */
export function removeStrictNulls(value: Record<string, unknown>, original: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(original.required ?? []);
  for (const [key, item] of Object.entries(value)) {
    const property = original.properties?.[key];
    if (item === null && !required.has(key) && !allowsNull(property)) continue;
    out[key] = property ? restoreValue(item, property) : item;
  }
  return out;
}

function restoreValue(value: unknown, schema: JsonSchema): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isSchema(items)) return value;
    return value.map((entry) => restoreValue(entry, items));
  }
  if (typeof value === 'object' && value !== null && isSchema(schema.properties)) {
    return removeStrictNulls(value as Record<string, unknown>, schema);
  }
  return value;
}
