import type { JsonSchema, ToolValidationResult } from '@toolwire/core';

// A small stand-in for core's schema validation (not landed yet when this was written):
// the arguments must be an object, required properties present, and top-level property
// types as declared. Messages are written for the model.
/** Validates `args` against the top level of an object JSON Schema. */
export function validateObject(schema: JsonSchema, args: unknown): ToolValidationResult<Record<string, unknown>> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return invalid('', 'Arguments must be a JSON object.');
  }
  const record = args as Record<string, unknown>;
  const issues: { path: string; message: string }[] = [];
  for (const name of schema.required ?? []) {
    if (record[name] === undefined) issues.push({ path: name, message: `"${name}" is required.` });
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const value = record[name];
    if (value === undefined || property.type === undefined) continue;
    const types = Array.isArray(property.type) ? property.type : [property.type];
    if (!types.some((type) => matchesType(type, value))) {
      issues.push({ path: name, message: `"${name}" must be ${types.join(' or ')}.` });
    } else if (property.type === 'array' && !Array.isArray(property.items) && property.items?.type !== undefined) {
      const itemType = property.items.type;
      const itemTypes = Array.isArray(itemType) ? itemType : [itemType];
      if ((value as unknown[]).some((item) => !itemTypes.some((type) => matchesType(type, item)))) {
        issues.push({ path: name, message: `every item of "${name}" must be ${itemTypes.join(' or ')}.` });
      }
    }
  }
  if (schema.additionalProperties === false) {
    for (const name of Object.keys(record)) {
      if (schema.properties?.[name] === undefined) issues.push({ path: name, message: `"${name}" is not an accepted argument.` });
    }
  }
  if (issues.length > 0) {
    return { success: false, message: `Invalid arguments: ${issues.map((i) => i.message).join(' ')}`, issues };
  }
  return { success: true, value: record };
}

function matchesType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return true;
  }
}

function invalid(path: string, message: string): ToolValidationResult<Record<string, unknown>> {
  return { success: false, message, issues: [{ path, message }] };
}
