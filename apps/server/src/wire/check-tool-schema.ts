import type { GatewayError } from './gateway-error.ts';
import { invalidRequest } from './gateway-error.ts';
import { isObject } from './request-fields.ts';

// Keywords whose value is one schema, a map of names to schemas, or a list of schemas.
const ONE_SCHEMA = ['additionalProperties', 'items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'] as const;
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
const SCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/** A schema is an object or a boolean (`true` accepts anything, `false` nothing). */
const isSchema = (value: unknown): boolean => isObject(value) || typeof value === 'boolean';

/** The first keyword of `schema` (at `path`) whose value has the wrong shape, as a sentence; undefined when none. */
function shapeProblem(schema: unknown, path: string): string | undefined {
  if (!isObject(schema)) return undefined;
  for (const key of ONE_SCHEMA) {
    const value = schema[key];
    if (value === undefined) continue;
    // `items` may also be a list of schemas (draft 2019 and before).
    if (key === 'items' && Array.isArray(value)) {
      const bad = value.findIndex((item) => !isSchema(item));
      if (bad >= 0) return `'${path}.items[${bad}]' is not a schema (an object or a boolean)`;
      for (const [i, item] of value.entries()) {
        const problem = shapeProblem(item, `${path}.items[${i}]`);
        if (problem !== undefined) return problem;
      }
      continue;
    }
    if (!isSchema(value)) return `'${path}.${key}' is not a schema (an object or a boolean)`;
    const problem = shapeProblem(value, `${path}.${key}`);
    if (problem !== undefined) return problem;
  }
  for (const key of SCHEMA_MAP) {
    const value = schema[key];
    if (value === undefined) continue;
    if (!isObject(value)) return `'${path}.${key}' is not an object of schemas`;
    for (const [name, item] of Object.entries(value)) {
      if (!isSchema(item)) return `'${path}.${key}.${name}' is not a schema (an object or a boolean)`;
      const problem = shapeProblem(item, `${path}.${key}.${name}`);
      if (problem !== undefined) return problem;
    }
  }
  for (const key of SCHEMA_LIST) {
    const value = schema[key];
    if (value === undefined) continue;
    if (!Array.isArray(value) || value.length === 0) return `'${path}.${key}' is not a non-empty list of schemas`;
    for (const [i, item] of value.entries()) {
      if (!isSchema(item)) return `'${path}.${key}[${i}]' is not a schema (an object or a boolean)`;
      const problem = shapeProblem(item, `${path}.${key}[${i}]`);
      if (problem !== undefined) return problem;
    }
  }
  const { required, type, enum: values } = schema;
  if (required !== undefined && (!Array.isArray(required) || required.some((name) => typeof name !== 'string'))) return `'${path}.required' is not a list of property names`;
  if (type !== undefined && typeof type !== 'string' && (!Array.isArray(type) || type.some((name) => typeof name !== 'string'))) return `'${path}.type' is not a type name or a list of them`;
  if (values !== undefined && !Array.isArray(values)) return `'${path}.enum' is not a list`;
  return undefined;
}

/**
 * A 400 `invalid_function_parameters` when a tool's parameter schema has a keyword of the
 * wrong shape (`properties: {"city": null}`, `anyOf: "x"`, `required: [1]`), as OpenAI refuses
 * it; else nothing. Everything after the parser (the text-tool prompt, argument coercion,
 * strict-mode restoring) walks these keywords and takes them for what JSON Schema says they
 * are. The walk follows the request's nesting, which the body's depth check already bounds.
 */
export function checkToolSchema(schema: Record<string, unknown>, name: string, param: string): GatewayError | undefined {
  const problem = shapeProblem(schema, param);
  if (problem === undefined) return undefined;
  return invalidRequest(`Invalid schema for function '${name}': ${problem}. Send a JSON Schema whose keywords hold what JSON Schema defines.`, param, 'invalid_function_parameters');
}
