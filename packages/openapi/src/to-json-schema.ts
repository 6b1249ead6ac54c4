import type { JsonSchema } from '@toolwire/core';

/** Which dialect a document's schemas are written in. */
export type SchemaDialect = 'openapi-3.0' | 'openapi-3.1';

/**
 * Turns OpenAPI schema objects (already dereferenced, except for the `$ref`s a cycle
 * left in place) into JSON Schema 2020-12 for a tool: one call per tool, so the `$defs`
 * it collects belong to that tool's schema.
 */
export class SchemaConverter {
  /** `$defs` collected so far: the targets of cyclic `$ref`s, converted. */
  readonly defs: Record<string, JsonSchema> = {};
  private readonly defNames = new Map<string, string>();
  private readonly document: unknown;
  private readonly dialect: SchemaDialect;

  constructor(document: unknown, dialect: SchemaDialect) {
    this.document = document;
    this.dialect = dialect;
  }

  /** A converted deep copy of `schema`; the document is never changed. */
  convert(schema: unknown): JsonSchema {
    const converted = this.node(schema, 0);
    return isObject(converted) ? converted : {};
  }

  private node(value: unknown, depth: number): unknown {
    // The parser leaves only cyclic `$ref`s, so a deep tree is a broken document, not a real schema.
    if (depth > 64) throw new Error('a schema is nested more than 64 levels deep');
    if (Array.isArray(value)) return value.map((item) => this.node(item, depth + 1));
    if (!isObject(value)) return value;
    // Null-prototype maps: `__proto__` is a property name a document may use.
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [key, child] of Object.entries(value)) {
      // Vendor extensions and documentation-only keywords only cost the model tokens.
      if (key.startsWith('x-') || key === 'xml' || key === 'externalDocs' || key === 'discriminator') continue;
      if (key === '$ref' && typeof child === 'string') {
        out.$ref = this.ref(child);
        continue;
      }
      if (SCHEMA_MAPS.has(key) && isObject(child)) {
        // Names of properties, not keywords: `x-request-id` here is a real property.
        const map: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
        for (const [name, schema] of Object.entries(child)) map[name] = this.node(schema, depth + 1);
        out[key] = { ...map };
        continue;
      }
      if ((key === 'description' || key === 'title') && typeof child === 'string') {
        out[key] = cutText(child);
        continue;
      }
      out[key] = PLAIN_KEYWORDS.has(key) ? child : this.node(child, depth + 1);
    }
    if (this.dialect === 'openapi-3.0') from30(out);
    return { ...out };
  }

  private ref(ref: string): string {
    const known = this.defNames.get(ref);
    if (known !== undefined) return `#/$defs/${known}`;
    if (!ref.startsWith('#/')) throw new Error(`the reference "${ref}" points outside the document`);
    const target = resolvePointer(this.document, ref);
    if (target === undefined) throw new Error(`the reference "${ref}" points at nothing`);
    const base = (decodeSegment(ref.slice(ref.lastIndexOf('/') + 1)).replace(/[^A-Za-z0-9_.-]/g, '_') || 'schema').slice(0, 64);
    let name = base;
    for (let n = 2; Object.hasOwn(this.defs, name); n++) name = `${base}_${n}`;
    this.defNames.set(ref, name);
    // Reserve the name before converting, so the cycle back to it finds it.
    this.defs[name] = {};
    this.defs[name] = this.convert(target);
    return `#/$defs/${name}`;
  }
}

// Keywords whose values map names to schemas.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
// Keywords whose values are data, not schemas: copied as they are.
const PLAIN_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples', 'required', 'type', 'format', 'pattern']);

// OpenAPI 3.0's schema dialect differs from JSON Schema in a few keywords.
function from30(schema: Record<string, unknown>): void {
  if (schema.nullable === true) {
    const type = schema.type;
    if (typeof type === 'string') schema.type = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null')) schema.type = [...(type as unknown[]), 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
  }
  delete schema.nullable;
  // 3.0 writes exclusive bounds as a flag beside `minimum`/`maximum`; 2020-12 as the number.
  if (typeof schema.exclusiveMinimum === 'boolean') {
    if (schema.exclusiveMinimum && typeof schema.minimum === 'number') {
      schema.exclusiveMinimum = schema.minimum;
      delete schema.minimum;
    } else delete schema.exclusiveMinimum;
  }
  if (typeof schema.exclusiveMaximum === 'boolean') {
    if (schema.exclusiveMaximum && typeof schema.maximum === 'number') {
      schema.exclusiveMaximum = schema.maximum;
      delete schema.maximum;
    } else delete schema.exclusiveMaximum;
  }
  if ('example' in schema) {
    schema.examples = [schema.example];
    delete schema.example;
  }
}

/** Longest description kept in a tool's schema: the schema goes to the model with every request. */
export const MAX_DESCRIPTION_CHARS = 1024;

/** A description cut to `MAX_DESCRIPTION_CHARS`. */
export function cutText(text: string): string {
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 3)}...` : text;
}

function resolvePointer(document: unknown, ref: string): unknown {
  let node = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeSegment(raw);
    if ((!isObject(node) && !Array.isArray(node)) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

// A JSON Pointer segment inside a URI fragment: percent-decoded, then `~1` → `/`, `~0` → `~`.
function decodeSegment(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded after all.
  }
  return text.replaceAll('~1', '/').replaceAll('~0', '~');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
