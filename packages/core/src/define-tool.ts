import * as z from 'zod';
import { InvalidToolDefinitionError } from './errors.ts';
import { isValidToolName, TOOL_NAME_RULE } from './tool-name.ts';
import type { JsonSchema } from './types/json-schema.ts';
import type { Tool, ToolExecutionContext, ToolValidationResult } from './types/tool.ts';
import { compileJsonSchema } from './validation/json-schema-validator.ts';
import { joinIssues } from './validation/validation-issue.ts';
import type { ValidationIssue } from './validation/validation-issue.ts';
import { isNestedDeeperThan, MAX_VALUE_DEPTH, TOO_DEEP_ISSUE } from './validation/value-depth.ts';
import { zodIssues } from './validation/zod-issues.ts';

/** What `defineTool` takes; `parameters` is a zod object schema or a JSON Schema of `type: "object"`. */
export interface ToolDefinition<TParameters, TArgs, TResult> {
  /** 1–64 characters from `a-z A-Z 0-9 _ . -`, as every provider accepts. */
  name: string;
  description?: string;
  parameters: TParameters;
  /** Runs the tool. Leave it out for a client-side tool that the caller answers. */
  execute?: (args: TArgs, context: ToolExecutionContext) => TResult | Promise<TResult>;
  /** Ask the provider to constrain arguments to the schema exactly (OpenAI strict mode). */
  strict?: boolean;
}

/**
 * Defines a function tool from a zod (v4) schema or a plain JSON Schema. The tool exposes
 * `inputSchema` for the wire and `validate()`, whose messages a model can act on
 * (`limit: must be <= 100, got 500`). With zod, `execute` receives the parsed (typed) value.
 * Throws `InvalidToolDefinitionError` for a bad name, a non-object schema, or a schema
 * that does not compile.
 *
 * @example
 * const search = defineTool({
 *   name: 'search',
 *   description: 'Search the docs',
 *   parameters: z.object({ query: z.string(), limit: z.number().int().max(100).default(10) }),
 *   execute: async ({ query, limit }) => searchDocs(query, limit),
 * });
 */
export function defineTool<TSchema extends z.ZodType, TResult = unknown>(
  definition: ToolDefinition<TSchema, z.output<TSchema>, TResult>,
): Tool<z.output<TSchema>, TResult>;
export function defineTool<TArgs = Record<string, unknown>, TResult = unknown>(
  definition: ToolDefinition<JsonSchema, TArgs, TResult>,
): Tool<TArgs, TResult>;
export function defineTool(definition: ToolDefinition<z.ZodType | JsonSchema, unknown, unknown>): Tool<unknown> {
  const { name, description, parameters, execute, strict } = definition;
  checkName(name);
  if (typeof parameters !== 'object' || parameters === null) {
    throw new InvalidToolDefinitionError({
      toolName: name,
      problem: 'parameters must be a zod object schema or a JSON Schema object with type "object".',
    });
  }
  const { inputSchema, validate } = isZodSchema(parameters) ? fromZod(name, parameters) : fromJsonSchema(name, parameters);
  const tool: Tool<unknown> = { type: 'function', name, inputSchema, validate };
  if (description !== undefined) tool.description = description;
  if (strict !== undefined) tool.strict = strict;
  if (execute) tool.execute = execute;
  return tool;
}

function checkName(name: unknown): asserts name is string {
  // Core also accepts namespaced names (`files.read`); the wire rule itself is `TOOL_NAME_RULE`.
  if (!isValidToolName(name, { dots: true })) {
    throw new InvalidToolDefinitionError({
      toolName: String(name),
      problem: `the name must be ${TOOL_NAME_RULE.description}; "." is allowed too for namespaced tools.`,
    });
  }
}

function isZodSchema(value: object): value is z.ZodType {
  return '_zod' in value;
}

interface Compiled {
  inputSchema: JsonSchema;
  validate: (args: unknown) => ToolValidationResult<unknown>;
}

function failure(issues: ValidationIssue[]): ToolValidationResult<unknown> {
  return { success: false, message: joinIssues(issues), issues };
}

function fromZod(name: string, schema: z.ZodType): Compiled {
  let inputSchema: JsonSchema;
  try {
    // `io: 'input'`: the model writes the input side (before defaults and transforms).
    inputSchema = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  } catch (cause) {
    throw new InvalidToolDefinitionError({
      toolName: name,
      problem: `its zod schema cannot be expressed as JSON Schema (${errorText(cause)}). Use JSON-compatible types (no dates, maps, functions).`,
      cause,
    });
  }
  delete inputSchema.$schema;
  checkObjectSchema(name, inputSchema);
  return {
    inputSchema,
    validate(args) {
      // A recursive (z.lazy) schema recurses as deep as the value does.
      if (isNestedDeeperThan(args, MAX_VALUE_DEPTH)) return failure([TOO_DEEP_ISSUE]);
      let parsed;
      try {
        parsed = schema.safeParse(args, { reportInput: true });
      } catch (error) {
        if (error instanceof RangeError) return failure([TOO_DEEP_ISSUE]);
        throw error;
      }
      return parsed.success ? { success: true, value: parsed.data } : failure(zodIssues(parsed.error.issues));
    },
  };
}

function fromJsonSchema(name: string, schema: JsonSchema): Compiled {
  checkObjectSchema(name, schema);
  let validator;
  try {
    validator = compileJsonSchema(schema);
  } catch (cause) {
    throw new InvalidToolDefinitionError({
      toolName: name,
      problem: `its JSON Schema does not compile: ${errorText(cause)}`,
      cause,
    });
  }
  return {
    inputSchema: schema,
    validate(args) {
      const result = validator(args);
      return result.success ? result : failure(result.issues);
    },
  };
}

function checkObjectSchema(name: string, schema: JsonSchema): void {
  const type = schema.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
  if (!isObject) {
    throw new InvalidToolDefinitionError({
      toolName: name,
      problem: `parameters must describe an object (type "object"), got ${type === undefined ? 'no type' : JSON.stringify(type)}. Wrap single values in an object, e.g. { "type": "object", "properties": { "value": … } }.`,
    });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
