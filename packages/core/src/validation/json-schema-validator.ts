import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { JsonSchema } from '../types/json-schema.ts';
import { ajvIssues } from './ajv-issues.ts';
import { linearRegExp, resetPatternBudget } from './linear-regexp.ts';
import { schemaBoundsProblem } from './schema-bounds.ts';
import { isNestedDeeperThan, MAX_VALUE_DEPTH, TOO_DEEP_ISSUE } from './value-depth.ts';
import type { ValidationIssue } from './validation-issue.ts';

/** Checks a value against a compiled JSON Schema. */
export type JsonSchemaValidator = (
  value: unknown,
) => { success: true; value: unknown } | { success: false; issues: ValidationIssue[] };

let ajv: Ajv2020 | undefined;
let compiledByThisAjv = 0;
const cache = new WeakMap<object, JsonSchemaValidator>();
/**
 * Schemas compiled by one Ajv instance before a fresh one takes over. Ajv keeps every
 * pattern it compiled (and other shared values) in its instance for good; with schemas
 * from clients that is memory without bound. A validator keeps what it needs of its own
 * instance, so an instance is collected once its validators are.
 */
const COMPILES_PER_AJV = 100;

function sharedAjv(): Ajv2020 {
  if (++compiledByThisAjv > COMPILES_PER_AJV) {
    ajv = undefined;
    compiledByThisAjv = 1;
  }
  // strict: false because tool schemas carry keywords Ajv does not know (`strict`,
  // vendor extensions) and formats it does not know (ignored); addUsedSchema: false so two
  // tools with the same `$id` do not collide.
  if (ajv === undefined) {
    // code.regExp: patterns come from clients and models, so they run on a linear-time engine.
    ajv = new Ajv2020({
      allErrors: true,
      verbose: true,
      strict: false,
      addUsedSchema: false,
      useDefaults: true,
      // Arguments are read as the model wrote them: `constructor` or `toString` left out is
      // missing, not Object.prototype's member (which failed `type`, or met `required`).
      ownProperties: true,
      logger: false,
      code: { regExp: linearRegExp },
    });
    // The JSON Schema formats (`email`, `date-time`, `uri`, `uuid`, …), checked in full.
    // ajv-formats is CommonJS: its function is both the module and its `default`.
    ajvFormats.default(ajv, { mode: 'full' });
  }
  return ajv;
}

/**
 * Compiles a JSON Schema once (cached by schema object) into a validator that applies
 * `default`s to a copy of the value. Throws when the schema does not compile, or is too
 * deep or too large to compile safely (`MAX_SCHEMA_DEPTH`, `MAX_SCHEMA_NODES`). Values
 * nested deeper than `MAX_VALUE_DEPTH` fail validation with an issue, never a `RangeError`.
 */
export function compileJsonSchema(schema: JsonSchema): JsonSchemaValidator {
  const cached = cache.get(schema);
  if (cached) return cached;
  const tooBig = schemaBoundsProblem(schema);
  if (tooBig !== undefined) throw new SchemaTooComplexError(tooBig);
  const instance = sharedAjv();
  // Tool schemas often declare draft-07 (`$schema`), which this Ajv does not load; the
  // keywords tools use mean the same in 2020-12, so validate them as 2020-12.
  const { $schema: _declared, ...compilable } = schema;
  let validate: ValidateFunction;
  try {
    resetPatternBudget();
    validate = instance.compile(compilable);
  } finally {
    // Ajv keeps every schema it was given in its own cache, compiled or not; ours is weak,
    // so drop Ajv's entry (a compiled function stays valid) to let per-request tools, and
    // schemas that failed to compile, be collected.
    instance.removeSchema(compilable);
  }
  // Ajv writes defaults into the value it checks: copy the caller's value only when it may.
  const writesDefaults = hasDefaults(schema);
  const validator: JsonSchemaValidator = (value) => {
    // A recursive schema ($ref to itself) recurses as deep as the value does.
    if (isNestedDeeperThan(value, MAX_VALUE_DEPTH)) return { success: false, issues: [TOO_DEEP_ISSUE] };
    const copy = writesDefaults ? structuredCloneJson(value) : value;
    try {
      if (validate(copy)) return { success: true, value: copy };
    } catch (error) {
      if (error instanceof RangeError) return { success: false, issues: [TOO_DEEP_ISSUE] };
      throw error;
    }
    return { success: false, issues: ajvIssues(validate.errors ?? []) };
  };
  cache.set(schema, validator);
  return validator;
}

/** A schema refused before compiling; `message` says what to change. */
export class SchemaTooComplexError extends Error {
  override readonly name = 'SchemaTooComplexError';
}

function structuredCloneJson(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    // Values with functions cannot be cloned; they also cannot come from a model.
    return value;
  }
}

function hasDefaults(schema: unknown): boolean {
  const pending: unknown[] = [schema];
  const seen = new Set<unknown>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && 'default' in node) return true;
    for (const child of Object.values(node)) pending.push(child);
  }
  return false;
}
