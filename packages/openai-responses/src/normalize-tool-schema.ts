import type { JsonSchema } from '@toolwire/core';

/**
 * Makes a tool's parameter schema acceptable to the backend, which rejects a schema whose
 * root is not `type: "object"` ("schema must be a JSON Schema of 'type: "object"'") and
 * objects without `properties`. Like Codex (`tools/spec.rs`): a missing `type` is
 * inferred, objects get `properties: {}`, arrays get `items`. The input is not modified.
 */
export function normalizeToolSchema(schema: JsonSchema): JsonSchema {
  const normalized = normalizeNode(schema, 0);
  return { ...normalized, type: 'object', properties: normalized.properties ?? {} };
}

const MAX_DEPTH = 64;

function normalizeNode(schema: JsonSchema, depth: number): JsonSchema {
  if (depth > MAX_DEPTH) return schema;
  const result: JsonSchema = { ...schema };
  if (result.type === undefined && result.anyOf === undefined && result.oneOf === undefined && result.allOf === undefined) {
    if (result.properties !== undefined) result.type = 'object';
    else if (result.items !== undefined) result.type = 'array';
    else if (result.enum === undefined && result.const === undefined) result.type = 'string';
  }
  const types = Array.isArray(result.type) ? result.type : result.type === undefined ? [] : [result.type];
  if (result.properties !== undefined || types.includes('object')) {
    const properties: Record<string, JsonSchema> = {};
    for (const [key, value] of Object.entries(result.properties ?? {})) properties[key] = normalizeNode(value, depth + 1);
    result.properties = properties;
  }
  if (types.includes('array')) {
    const items = result.items;
    result.items = items === undefined ? { type: 'string' } : Array.isArray(items) ? items.map((item) => normalizeNode(item, depth + 1)) : normalizeNode(items, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = result[key];
    if (list !== undefined) result[key] = list.map((item) => normalizeNode(item, depth + 1));
  }
  if (typeof result.additionalProperties === 'object') result.additionalProperties = normalizeNode(result.additionalProperties, depth + 1);
  return result;
}
