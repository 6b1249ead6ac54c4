import type { core } from 'zod';
import { countOf, describeValue, formatPath } from './describe-value.ts';
import type { ValidationIssue } from './validation-issue.ts';

type ZodIssue = core.$ZodIssue;

/**
 * Turns zod issues (parsed with `reportInput: true`, so each carries its `input`) into
 * messages a model can act on: `limit: must be <= 100, got 500`.
 */
export function zodIssues(issues: readonly ZodIssue[]): ValidationIssue[] {
  const result: ValidationIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) result.push({ path: formatPath([...issue.path, key]), message: 'is not an allowed property' });
      continue;
    }
    result.push({ path: formatPath(issue.path), message: messageOf(issue) });
  }
  return result;
}

function messageOf(issue: ZodIssue): string {
  const got = `, got ${describeValue(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${issue.expected === 'int' ? 'integer' : issue.expected}${got}`;
    case 'too_big':
      return `${bound(issue.origin, issue.inclusive ? '<=' : '<', issue.maximum, 'at most')}${got}`;
    case 'too_small':
      return `${bound(issue.origin, issue.inclusive ? '>=' : '>', issue.minimum, 'at least')}${got}`;
    case 'invalid_format':
      return issue.format === 'regex' && issue.pattern !== undefined
        ? `must match the pattern ${issue.pattern}${got}`
        : `must be a valid ${issue.format}${got}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}${got}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}${got}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`;
    case 'invalid_union':
      return `does not match any of the allowed shapes${got}`;
    case 'invalid_key':
      return `is not an allowed key: ${innerMessage(issue.issues, issue.message)}`;
    case 'invalid_element':
      return `is not an allowed value: ${innerMessage(issue.issues, issue.message)}`;
    case 'unrecognized_keys':
      return 'has properties that are not allowed';
    case 'custom':
      return issue.message;
    default: {
      const unexpected: never = issue;
      return (unexpected as { message: string }).message;
    }
  }
}

function innerMessage(issues: readonly ZodIssue[], fallback: string): string {
  const first = issues[0];
  return first ? messageOf(first) : fallback;
}

function bound(origin: string, comparison: string, limit: number | bigint, words: string): string {
  switch (origin) {
    case 'string':
      return `must be ${words} ${countOf(limit, 'character')} long`;
    case 'array':
    case 'set':
      return `must have ${words} ${countOf(limit, 'item')}`;
    default:
      return `must be ${comparison} ${String(limit)}`;
  }
}
