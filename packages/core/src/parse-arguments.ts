import { UnsupportedFeatureError } from './errors.ts';
import type { JsonSchema } from './types/json-schema.ts';

/** Options of `parseArguments`. */
export interface ParseArgumentsOptions {
  /** The tool's JSON Schema: values are coerced to declared property types when lossless. */
  schema?: JsonSchema;
}

/**
 * Parses the argument text of a call (what stands between its parentheses) into an
 * object: JSON objects, key=value pairs, positional values (`arg0`, `arg1`, …) and mixes.
 */
export function parseArguments(_raw: string, _options?: ParseArgumentsOptions): Record<string, unknown> {
  throw new UnsupportedFeatureError({ feature: 'parseArguments', message: 'parseArguments is being written.' });
}
