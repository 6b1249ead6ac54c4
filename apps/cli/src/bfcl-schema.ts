import type { JsonSchema } from '@toolwire/core';

/**
 * Converts a parameter schema in the Berkeley Function Calling Leaderboard's dialect
 * (`"type": "dict"`, `"float"`, `"tuple"`, `"any"`) into JSON Schema.
 */
export function bfclToJsonSchema(schema: unknown): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    switch (key) {
      case 'type':
        if (value === 'dict') out.type = 'object';
        else if (value === 'float') out.type = 'number';
        else if (value === 'tuple') out.type = 'array';
        else if (value === 'integer' || value === 'string' || value === 'boolean' || value === 'array' || value === 'number' || value === 'object') {
          out.type = value;
        }
        break;
      case 'properties':
        if (typeof value === 'object' && value !== null) {
          out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, bfclToJsonSchema(sub)]));
        }
        break;
      case 'items':
        out.items = bfclToJsonSchema(value);
        break;
      case 'required':
        if (Array.isArray(value)) out.required = value.filter((v): v is string => typeof v === 'string');
        break;
      case 'description':
        if (typeof value === 'string') out.description = value;
        break;
      case 'enum':
        if (Array.isArray(value)) out.enum = value;
        break;
      default:
        break;
    }
  }
  return out;
}
