import type { ErrorObject } from 'ajv/dist/2020.js';
import { countOf, describeValue, formatPath, pointerSegments } from './describe-value.ts';
import type { ValidationIssue } from './validation-issue.ts';

/**
 * Turns Ajv's errors (compiled with `verbose: true`, so each carries its `data`) into
 * messages a model can act on: `limit: must be <= 100, got 500`.
 */
export function ajvIssues(errors: readonly ErrorObject[]): ValidationIssue[] {
  // A failed anyOf/oneOf also reports every branch's errors; keep only the summary.
  const unions = errors
    .filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .map((error) => `${error.schemaPath}/`);
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (unions.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    const issue = toIssue(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function param(error: ErrorObject, name: string): unknown {
  return (error.params as Record<string, unknown>)[name];
}

function toIssue(error: ErrorObject): ValidationIssue {
  const segments = pointerSegments(error.instancePath);
  const got = `, got ${describeValue(error.data)}`;
  switch (error.keyword) {
    case 'required':
      return { path: formatPath([...segments, String(param(error, 'missingProperty'))]), message: 'is required' };
    case 'additionalProperties': {
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const hint = allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '';
      return {
        path: formatPath([...segments, String(param(error, 'additionalProperty'))]),
        message: `is not an allowed property${hint}`,
      };
    }
    case 'type': {
      const type = param(error, 'type');
      return { path: formatPath(segments), message: `must be ${Array.isArray(type) ? type.join(' or ') : String(type)}${got}` };
    }
    case 'enum': {
      const allowed = (param(error, 'allowedValues') as unknown[] | undefined) ?? [];
      return { path: formatPath(segments), message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${got}` };
    }
    case 'const':
      return { path: formatPath(segments), message: `must be ${JSON.stringify(param(error, 'allowedValue'))}${got}` };
    case 'minLength':
      return { path: formatPath(segments), message: `must be at least ${countOf(param(error, 'limit'), 'character')} long${got}` };
    case 'maxLength':
      return { path: formatPath(segments), message: `must be at most ${countOf(param(error, 'limit'), 'character')} long${got}` };
    case 'minItems':
      return { path: formatPath(segments), message: `must have at least ${countOf(param(error, 'limit'), 'item')}` };
    case 'maxItems':
      return { path: formatPath(segments), message: `must have at most ${countOf(param(error, 'limit'), 'item')}` };
    case 'pattern':
      return { path: formatPath(segments), message: `must match the pattern ${String(param(error, 'pattern'))}${got}` };
    case 'format':
      return { path: formatPath(segments), message: `must be a valid ${String(param(error, 'format'))}${got}` };
    case 'anyOf':
    case 'oneOf':
      return { path: formatPath(segments), message: `does not match any of the allowed shapes${got}` };
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
    case 'multipleOf':
      return { path: formatPath(segments), message: `${error.message ?? 'is out of range'}${got}` };
    default:
      return { path: formatPath(segments), message: error.message ?? `fails the "${error.keyword}" rule` };
  }
}
