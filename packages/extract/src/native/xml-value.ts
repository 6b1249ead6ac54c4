import { parseArguments } from '@toolwire/core';
import type { JsonSchema } from '@toolwire/core';
import { tryJson } from './json-extent.ts';

/** The property schema of `key` in a tool's argument schema. */
export function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  const properties = schema?.properties;
  if (properties === undefined || !Object.hasOwn(properties, key)) return undefined;
  return properties[key];
}

function typeNames(schema: JsonSchema): Set<string> {
  const names = new Set<string>();
  const add = (s: JsonSchema): void => {
    const type = s.type;
    if (Array.isArray(type)) for (const t of type) names.add(t);
    else if (typeof type === 'string') names.add(type);
    if (Array.isArray(s.enum)) for (const v of s.enum) names.add(v === null ? 'null' : typeof v);
  };
  add(schema);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) add(branch);
  return names;
}

/**
 * Whether a property's schema is a plain string: `string` (or `string` and `null`) with no
 * `enum` or `const` and no other type. Only such a value's surrounding space can be data
 * (indented code); an enum member or a number never has any.
 */
export function isPlainString(schema: JsonSchema | undefined): boolean {
  if (schema === undefined) return false;
  for (const branch of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    if (branch.enum !== undefined || branch.const !== undefined) return false;
  }
  const types = typeNames(schema);
  if (!types.has('string')) return false;
  for (const type of types) if (type !== 'string' && type !== 'null') return false;
  return true;
}

/** Whether the JSON value `v` is of one of the schema's non-string types. */
function hasOtherType(v: unknown, types: ReadonlySet<string>): boolean {
  if (typeof v === 'number') return types.has('number') || (types.has('integer') && Number.isInteger(v));
  if (typeof v === 'boolean') return types.has('boolean');
  if (Array.isArray(v)) return types.has('array');
  return typeof v === 'object' && v !== null && types.has('object');
}

/** Whether a JSON value is of a type `schema` allows (any, without a schema or a type). */
export function allowsJsonValue(schema: JsonSchema | undefined, value: unknown): boolean {
  if (schema === undefined) return true;
  const types = typeNames(schema);
  if (types.size === 0) return true;
  if (value === null) return types.has('null');
  if (Array.isArray(value)) return types.has('array');
  switch (typeof value) {
    case 'number':
      return types.has('number') || (types.has('integer') && Number.isInteger(value));
    case 'string':
    case 'boolean':
    case 'object':
      return types.has(typeof value);
    default:
      return false;
  }
}

/**
 * A parameter value of an XML-style format (Qwen3-Coder, Seed-OSS, MiniMax-M2, GLM), which
 * the model writes as bare text. Without a schema for it, it stays the text (as vLLM does).
 * With one: a string stays the text; `null`/`None` is null where the schema allows null;
 * numbers, booleans, objects and arrays are read as JSON or Python literals through core's
 * `parseArguments` (so `True`, `['a']` and `{'k': 1}` work); text that does not read as the
 * type stays text, for validation to report. Where a string or another type is allowed
 * (`["string", "integer"]`), text that is strict JSON of the other type is that value (`7`,
 * `{"a": 1}`), anything else the text (`1abc`, `123 Main St`), as llama.cpp reads them; a
 * number is read only where it is exact (a 20-digit id stays its text).
 */
export function convertXmlValue(raw: string, schema: JsonSchema | undefined): unknown {
  if (schema === undefined) return raw;
  const types = typeNames(schema);
  const t = raw.trim();
  if ((t === 'null' || t === 'None') && (types.has('null') || (types.size > 0 && !types.has('string')))) return null;
  if (types.has('string')) {
    const json = types.size > 1 ? tryJson(t) : undefined;
    if (json === undefined || !hasOtherType(json.value, types)) return raw;
    // A number that JSON cannot hold exactly (a long id) stays its text, which the string allows.
    const v = json.value;
    return typeof v !== 'number' || Number.isSafeInteger(v) || String(v) === t ? v : raw;
  }
  if (types.size === 0) return raw;
  if (t === '') return raw;
  try {
    const parsed = parseArguments(`v=${t}`, { schema: { type: 'object', properties: { v: schema } } });
    const keys = Object.keys(parsed);
    return keys.length === 1 && keys[0] === 'v' ? parsed.v : raw;
  } catch {
    return raw;
  }
}
